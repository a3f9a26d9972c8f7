import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { agentHome, ok } from '../helpers/agent-tty.js';

/**
 * Seed 004's discovery pattern: a program inside a session finds its socket,
 * the CLI and its own id in the environment, with no setup, and drives its
 * own session (or a sibling) through them.
 */
let home: string;
let cleanup: () => Promise<void>;
let self: string;
let sibling: string;

beforeAll(async () => {
  ({ home, cleanup } = agentHome());
  const env = { PS1: '$ ' };
  [self, sibling] = await Promise.all([
    ok(home, ['create', '--', 'bash', '--norc', '--noprofile'], { env }).then((r) => r.sessionId),
    ok(home, ['create', '--rows', '10', '--cols', '50', '--', 'bash', '--norc', '--noprofile'], { env }).then((r) => r.sessionId),
  ]);
});
afterAll(async () => cleanup());

describe('agent-tty session environment', () => {
  it('puts the socket (0600 in a 0700 directory), the CLI and the session id in the environment', async () => {
    const info = await ok(home, ['inspect', self]);
    const socket = info.session.socketPath;
    expect(statSync(socket).isSocket()).toBe(true);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(socket)).mode & 0o777).toBe(0o700);
    await ok(home, ['type', self, 'echo "id=$AGENT_TTY_SESSION_ID"; echo "sock=$AGENT_TTY_SOCKET"; stat -c "modes=%a" "$AGENT_TTY_SOCKET" "$(dirname "$AGENT_TTY_SOCKET")"', '--append-newline']);
    const shown = await ok(home, ['wait', self, '--regex', 'modes=700']);
    expect(shown.matched).toBe(true);
    const text = (await ok(home, ['snapshot', self, '--format', 'text'])).text;
    expect(text).toContain(`id=${self}`);
    expect(text).toContain(`sock=${socket}`);
    expect(text).toMatch(/modes=600\nmodes=700/);
  });

  it('lets the program drive its own session through the variables alone', async () => {
    // The CLI runs inside the session: its `type` goes back into the same PTY, and bash then runs it.
    await ok(home, ['type', self, `"$AGENT_TTY_BIN" type "$AGENT_TTY_SESSION_ID" 'echo self-$((6*7))' --append-newline --json > /dev/null`, '--append-newline']);
    const done = await ok(home, ['wait', self, '--regex', '^self-42$']);
    expect(done.matched).toBe(true);
  });

  it('lets it drive a sibling session and read its screen', async () => {
    await ok(home, ['type', self, `"$AGENT_TTY_BIN" type ${sibling} 'echo sibling-ok' --append-newline && "$AGENT_TTY_BIN" wait ${sibling} --text sibling-ok --json | grep -o '"matched":true'`, '--append-newline']);
    await ok(home, ['wait', self, '--regex', '^"matched":true$']);
    expect((await ok(home, ['snapshot', sibling, '--format', 'text'])).text).toMatch(/^sibling-ok$/m);
  });

  it('answers one JSON request per connection on the socket, with the CLI envelope', async () => {
    const socket = (await ok(home, ['inspect', self])).session.socketPath;
    const send = (line: string) =>
      new Promise<any>((resolve, reject) => {
        const c = connect(socket, () => c.end(line));
        let text = '';
        c.on('data', (d) => (text += d.toString()));
        c.on('end', () => resolve(JSON.parse(text)));
        c.on('error', reject);
      });
    expect(await send('{"command":"ping"}\n')).toMatchObject({ ok: true, command: 'ping', result: { sessionId: self, status: 'running' } });
    expect(await send('not json\n')).toMatchObject({ ok: false, error: { code: 'PROTOCOL_ERROR' } });
    expect(await send('{"command":"frobnicate"}\n')).toMatchObject({ ok: false, command: 'frobnicate', error: { code: 'PROTOCOL_ERROR' } });
    expect(await send('{"command":"send-keys","args":{"keys":["hyper+x"]}}\n')).toMatchObject({ ok: false, error: { code: 'INVALID_KEYS' } });
    await ok(home, ['type', self, 'echo socket-$((2+3))', '--append-newline']);
    await ok(home, ['wait', self, '--regex', '^socket-5$']);
    const snap = await send('{"command":"snapshot","args":{"format":"text","persist":false}}\n');
    expect(snap).toMatchObject({ ok: true, command: 'snapshot', result: { sessionId: self, format: 'text' } });
    expect(snap.result.text).toMatch(/^socket-5$/m);
  });
});
