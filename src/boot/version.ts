/** Whether a VS Code version string (`1.101.0`, `1.105.0-insider`) is at least major.minor. Pure: no vscode import. */
export function atLeast(version: string, major: number, minor: number): boolean {
  const [a = 0, b = 0] = version.split('.').map((n) => parseInt(n, 10));
  return a > major || (a === major && b >= minor);
}
