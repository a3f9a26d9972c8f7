import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ ok: true, command: 'version', timestamp: new Date().toISOString(), result: { version: packageVersion(), node: process.version } })}\n`);
  } else {
    process.stdout.write(`tapedeck ${packageVersion()}\n`);
  }
  return 0;
}
