/**
 * Framings a recording can see but tapedeck cannot replay: refused at record
 * time (exit 2, nothing recorded) rather than written into a tape that never
 * replays. Content-Length framing (LSP, DAP: `Content-Length: N\r\n\r\n` then
 * N bytes of JSON) is recognised from the client's first bytes.
 */
export function unreplayableFraming(firstBytes: Buffer): string | undefined {
  const head = firstBytes.subarray(0, 64).toString('latin1');
  if (/^\s*Content-(Length|Type):[^\n]*\r?\n/i.test(head)) {
    return 'the client speaks Content-Length framing (LSP or DAP: headers, a blank line, then a JSON body), which tapedeck cannot replay; nothing was recorded (tapedeck records NDJSON: one message per line)';
  }
  return undefined;
}
