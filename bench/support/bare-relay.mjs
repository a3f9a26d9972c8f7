// The floor for any Node process in the data path: a relay that forwards bytes
// both ways and does nothing else. bench/protocol-tap.mjs measures it beside
// the tap, so the tap's own cost can be told from the cost of the extra hop.
import { spawn } from 'node:child_process';
const c = spawn(process.argv[2], process.argv.slice(3), { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.on('data', (d) => c.stdin.write(d));
process.stdin.on('end', () => c.stdin.end());
c.stdout.on('data', (d) => process.stdout.write(d));
c.on('close', (code) => process.exit(code ?? 1));
