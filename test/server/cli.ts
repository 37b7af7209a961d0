import { startReferenceServer, webUiTemplate, type ReferenceServerOptions } from './index';

// Runs the reference server until SIGINT/SIGTERM, for the demo and for manual checks:
//
//   tsx test/server/cli.ts --port 8787 --data test/fixtures/demo.json
//        [--host 127.0.0.1] [--max-body-bytes N] [--admin] [--web-ui]

const USAGE =
  'usage: tsx test/server/cli.ts [--port N] [--host H] [--data FIXTURE.json] [--max-body-bytes N] [--admin] [--web-ui]';

function parseArgs(argv: readonly string[]): ReferenceServerOptions {
  const opts: ReferenceServerOptions = {};
  const value = (i: number, flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) fail(`${flag} needs a value`);
    return v;
  };
  const integer = (s: string, flag: string): number => {
    if (!/^\d+$/.test(s)) fail(`${flag} must be a non-negative integer`);
    return Number(s);
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    switch (flag) {
      case '--port':
        opts.port = integer(value(i++, flag), flag);
        break;
      case '--host':
        opts.host = value(i++, flag);
        break;
      case '--data':
        opts.fixture = value(i++, flag);
        break;
      case '--max-body-bytes':
        opts.maxBodyBytes = integer(value(i++, flag), flag);
        break;
      case '--admin':
        opts.admin = true;
        break;
      case '--web-ui':
        opts.webUi = true;
        break;
      case '--help':
      case '-h':
        console.log(USAGE);
        return process.exit(0);
      default:
        fail(`unknown argument ${flag}`);
    }
  }
  return opts;
}

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const server = await startReferenceServer(opts);
  console.log(`svc reference server listening on ${server.url}`);
  console.log(server.apiKey === undefined ? 'no API key configured (use --data with a fixture that has apiKeys)' : `API key: ${server.apiKey}`);
  if (opts.admin) console.log(`admin routes enabled under ${server.url}/__admin (reference server only)`);
  if (opts.webUi) console.log(`web UI pages under ${server.url}/ui/ (svc.webUiUrl: ${webUiTemplate(server.url)})`);
  const stop = (signal: string) => {
    console.log(`${signal}: shutting down`);
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
