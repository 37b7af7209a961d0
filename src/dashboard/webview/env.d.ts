/** The API VS Code gives a webview page (once per page). */
interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** esbuild bundles imported stylesheets into dashboard.css. */
declare module '*.css';
