import { execFileSync } from 'node:child_process';

/** Tests drive the built CLI: make sure dist/ matches src/ before any runs. */
export default function setup(): void {
  execFileSync('bash', ['scripts/build-if-stale.sh'], { stdio: 'inherit' });
}
