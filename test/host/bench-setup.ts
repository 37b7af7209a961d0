// What the in-host bench entries (bench.ts, bench-upload.ts) share: the extension pointed at the
// bench's sink and signed in, and a CPU profile of this host around a piece of work.
import * as inspector from 'node:inspector';
import * as vscode from 'vscode';
import type { BootApi, Exports } from '../../src/boot/main';
import type { SvcExtensionApi } from '../../src/extension';

export interface BenchHost {
  boot: BootApi;
  api: SvcExtensionApi;
  /** The sink's URL ($SVC_BENCH_URL), the trajectory file ($SVC_BENCH_FILE) and the key ($SVC_BENCH_KEY). */
  url: string;
  file: string;
  key: string;
}

/** Activates the extension, points it at $SVC_BENCH_URL and signs in with $SVC_BENCH_KEY. */
export async function benchHost(): Promise<BenchHost> {
  const url = process.env.SVC_BENCH_URL!;
  const file = process.env.SVC_BENCH_FILE!;
  const key = process.env.SVC_BENCH_KEY!;
  const ext = vscode.extensions.getExtension<Exports>('svc.svc-vscode')!;
  const boot = (await ext.activate()).getTestApi!();
  const api = await boot.core();
  await vscode.workspace.getConfiguration('svc').update('baseUrl', url, vscode.ConfigurationTarget.Global);
  for (let i = 0; i < 100 && api.connection.config.baseUrl !== url; i++) await new Promise((r) => setTimeout(r, 20));
  await vscode.commands.executeCommand('svc.signIn', { apiKey: key });
  return { boot, api, url, file, key };
}

/** Starts sampling a CPU profile of this host every `intervalUs` µs; the function returned stops it and gives the profile. */
export async function startCpuProfile(intervalUs: number): Promise<() => Promise<object>> {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) => new Promise<unknown>((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: intervalUs });
  await post('Profiler.start');
  return async () => {
    const { profile } = (await post('Profiler.stop')) as { profile: object };
    session.disconnect();
    return profile;
  };
}
