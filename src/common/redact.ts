/**
 * Scrubs secrets from text: the logger's last step (common/logger.ts) and the MCP server's answers.
 * Which strings are secret (a key, its token, their Basic header forms) is auth/secrets.ts's to say.
 * Pure: no vscode import, unit-tested in plain Node.
 */

/** `text` with every secret (and its base64) replaced by `***`; secrets under 4 characters are kept. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  const sorted = secrets.filter((s) => s && s.length >= 4).sort((a, b) => b.length - a.length);
  for (const secret of sorted) {
    out = out.split(secret).join('***');
    const b64 = Buffer.from(secret).toString('base64').replace(/=+$/, '');
    if (b64.length >= 6) out = out.split(b64).join('***');
  }
  return out;
}
