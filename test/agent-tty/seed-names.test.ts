import { afterAll, describe, expect, it } from 'vitest';
import { agentHome, agentTty, ok } from '../helpers/agent-tty.js';

const { home, cleanup } = agentHome();
afterAll(async () => cleanup());

describe("seed 004's names and seed 002's wording", () => {
  it('a session gets MYTTY_CONTROL_SOCKET, MYTTY_CTL_BIN and MYTTY_SURFACE_ID (seed 004) beside the AGENT_TTY_* ones', async () => {
    const id = (await ok(home, ['create', '--rows', '6', '--cols', '120', '--', 'sh', '-c', 'echo "surface=$MYTTY_SURFACE_ID"; echo "same=$([ "$MYTTY_CONTROL_SOCKET" = "$AGENT_TTY_SOCKET" ] && [ "$MYTTY_CTL_BIN" = "$AGENT_TTY_BIN" ] && echo yes)"; sleep 600'])).sessionId;
    await ok(home, ['wait', id, '--regex', 'same=']);
    const text = (await ok(home, ['snapshot', id, '--format', 'text'])).text;
    expect(text).toContain(`surface=${id}`);
    expect(text).toContain('same=yes');
    // A program killed by a signal is said to be, not to have "exited with code 0".
    await ok(home, ['signal', id, 'TERM']);
    await ok(home, ['wait', id, '--exit']);
    const typed = await agentTty(home, ['type', id, 'x']);
    expect(typed.code).toBe(4);
    expect(typed.env.error.message).toContain('its program was killed by SIGTERM');
  });
});
