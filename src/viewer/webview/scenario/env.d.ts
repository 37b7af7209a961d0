/** The API VS Code gives a webview page (once per page). */
interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** esbuild bundles imported stylesheets into scenario.css. */
declare module '*.css';
