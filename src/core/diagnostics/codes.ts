/**
 * tapedeck's own diagnostic codes. Each drift envelope carries one, and
 * `tapedeck explain CODE` prints its long explanation.
 */
export interface CodeInfo {
  code: string;
  title: string;
  explanation: string;
}

const catalogue: CodeInfo[] = [
  {
    code: 'TD1001',
    title: 'response drifted',
    explanation:
      'The live server answered a recorded request with different bytes than the tape holds. ' +
      'For JSON lines the differing JSONPaths are listed; otherwise a unified diff. If the change is ' +
      'intended, accept it with `tapedeck replay --update` (or apply the fix alternative of the drift ' +
      'envelope, which rewrites the tape line). If the difference is a volatile value (a timestamp, a ' +
      'version, an id), declare a normaliser: `--ignore JSONPATH` or `--filter REGEX=REPLACEMENT`, or the ' +
      'same keys in tapedeck.config.json.',
  },
  {
    code: 'TD1002',
    title: 'response never completed',
    explanation:
      'The server did not finish its response within --timeout-ms (default 10000). A response ends by the ' +
      'boundary rule: a {"kind":"done"} line (done), the message carrying the request id (jsonrpc), or a ' +
      'quiet period (idle:MS). The server was stopped and the rest of the tape was not replayed. Check ' +
      'that the server still answers this request, or raise --timeout-ms for slow operations.',
  },
  {
    code: 'TD1003',
    title: 'server exited before the tape ended',
    explanation:
      'The server process ended (exit status or signal shown) while recorded requests were still to be ' +
      'answered. The tail of its stderr is included. A crash on a recorded request is a regression; if ' +
      'the server is meant to exit here, re-record the tape.',
  },
  {
    code: 'TD1004',
    title: 'server message missing',
    explanation:
      'A message the server sent on its own (a JSON-RPC notification or server-to-client request) is in ' +
      'the tape but never came in the live run. Such messages may arrive before or after neighbouring ' +
      'responses, so they are matched anywhere in the tape rather than at a fixed position; this one ' +
      'came nowhere.',
  },
  {
    code: 'TD1005',
    title: 'unexpected server message',
    explanation:
      'The live server sent a message on its own (a JSON-RPC notification or server-to-client request) ' +
      'that the tape does not hold anywhere. Re-record or `--update` the tape if it is intended.',
  },
  {
    code: 'TD1101',
    title: 'screen never matched before an input',
    explanation:
      'Terminal replay sends each recorded input once the live screen shows what the recording showed just ' +
      'before that input (text of the visible screen and the cursor, after masks). The live screen never got ' +
      'there within --step-timeout-ms (default 5000), so the program now shows something else at this point: ' +
      'a changed prompt, message, file content or layout. The drift shows the recorded and the live screen as ' +
      'a unified diff. Unless --bail was given the input was sent anyway and the replay went on, so later ' +
      'steps may drift as a consequence. Accept an intended change with `tapedeck replay --update`, which ' +
      're-records the output and keeps the inputs; hide volatile regions (clocks, pids, paths) with --mask ' +
      'REGEX, --mask-rect ROW,COL,WIDTH[,HEIGHT] or the "mask" key of tapedeck.config.json.',
  },
  {
    code: 'TD1102',
    title: 'checkpoint screen differs',
    explanation:
      'A marker ("m" event) in a terminal tape is a checkpoint: the live screen must equal the screen the ' +
      'recording showed at that marker, as screen-golden text (with the style layer under --styles), after ' +
      'masks. It did not within --step-timeout-ms. The drift carries a unified diff of the two screens. ' +
      'Accept an intended change with `tapedeck replay --update`; mask volatile regions with --mask / --mask-rect.',
  },
  {
    code: 'TD1103',
    title: 'final screen differs',
    explanation:
      'At the end of a terminal tape the live screen must equal the last screen of the recording (after the ' +
      'program exited, when the tape records an exit). It did not within --step-timeout-ms. The drift carries ' +
      'a unified diff of the two screens. Accept an intended change with `tapedeck replay --update`.',
  },
  {
    code: 'TD1104',
    title: 'exit status differs',
    explanation:
      'The terminal tape records the exit status of the program (an "x" event) and the live program ended ' +
      'with another one, or had not ended within --step-timeout-ms after the last recorded step (it was then ' +
      'stopped). A different exit status after the same inputs is usually a regression; if intended, accept ' +
      'it with `tapedeck replay --update`.',
  },
  {
    code: 'TD1105',
    title: 'program exited before the tape ended',
    explanation:
      'The live program ended (exit status shown) while recorded inputs were still to be sent, so the rest of ' +
      'the tape could not be replayed. The drift shows the screen it left. A crash on a recorded input is a ' +
      'regression; if the program is meant to end here now, re-record the tape (`--update` cannot keep inputs ' +
      'that were never sent, so it leaves the tape alone).',
  },
  {
    code: 'TD1106',
    title: 'checkpoint screenshot differs',
    explanation:
      'With --screenshots (the `screenshots` option of replayTerminal and toReplayCleanly), every marker of a ' +
      'terminal tape is also a screenshot checkpoint: the live screen, once its text matched the recording, is ' +
      'rendered by the screenshot renderer (Chromium, pinned fonts, masks painted over in magenta) and ' +
      'pixel-compared with the PNG golden beside the tape, `<tape without .cast>.<marker>.png` (a repeated ' +
      'marker name gets -2, -3). The pixels differed beyond the allowance (--threshold, --max-diff-pixels, ' +
      '--max-diff-pixel-ratio, with Playwright toHaveScreenshot\'s meanings; default: no pixel may differ). ' +
      'The text form does not see colours without --styles, so this is typically a colour, attribute or ' +
      'cursor change, or a different render profile. Look at `<golden>.actual.png` (what the live run drew) ' +
      'and `<golden>.diff.png` (the differing pixels in red) written beside the golden; locally the ' +
      'candidate is also left as `<golden>.new` for `tapedeck review`. Accept an intended change with ' +
      '`tapedeck replay --screenshots --update` (vitest -u or TAPEDECK_UPDATE=all for the matcher), which ' +
      'rewrites the golden; mask volatile regions with --mask / --mask-rect. The same code reports a ' +
      'missing golden where goldens are never written (on CI, or TAPEDECK_UPDATE=none): create it by running ' +
      'the replay locally (missing goldens are written) and commit it. A checkpoint whose text already ' +
      'drifted (TD1102) is not pixel-compared (under --update, which re-records the tape, its golden is ' +
      'rewritten with the live screen too).',
  },
  {
    code: 'TD1201',
    title: 'VHS text output differs',
    explanation:
      'A VHS tape run with `tapedeck vhs` (or `toMatchVhsOutputs`) wrote its .txt/.ascii output frame by frame, as VHS ' +
      'writes it (the first rows of the terminal buffer after each command, then a line of 80 dashes), and a frame ' +
      'differs from the existing file. The drift names the first differing frame, the tape line of the command ' +
      'after which it was taken, and a diff of the two frames. Accept an intended change with `tapedeck vhs -u`, ' +
      'or review the `.new` left beside the output with `tapedeck review`.',
  },
  {
    code: 'TD1202',
    title: 'VHS cast output differs',
    explanation:
      'The .cast output of a VHS tape (tapedeck\'s asciicast, one marker after each command) is compared by its ' +
      'screens at the markers, not by its bytes or times. A screen differs from the existing cast (or the cast is ' +
      'missing where goldens are never written). Accept with `tapedeck vhs -u` or `tapedeck review`.',
  },
  {
    code: 'TD1203',
    title: 'VHS output missing',
    explanation:
      'The tape declares an Output (text, cast, GIF, video, frames folder) or a Screenshot that does not exist, and goldens are never written here (CI is set, or ' +
      'TAPEDECK_UPDATE=none). Run the tape locally (missing outputs are written) and commit the output.',
  },
  {
    code: 'TD1204',
    title: 'VHS Screenshot differs',
    explanation:
      'A `Screenshot FILE.png` of a VHS tape is rendered by tapedeck\'s raster renderer and compared with the existing ' +
      'PNG by pixels (pixelmatch threshold 0.2, no differing pixel allowed by default). The screen at that point of ' +
      'the tape drew differently, or the PNG was made by another renderer (re-record it). The message counts the ' +
      'differing pixels; `.actual.png` and `.diff.png` are written beside it. Accept with `tapedeck vhs -u` or ' +
      '`tapedeck review`.',
  },
  {
    code: 'TD1205',
    title: 'VHS GIF, video or frames output differs',
    explanation:
      'A .gif, .webm, .mp4 or frames-folder Output of a VHS tape is rendered from the run\'s timeline (typing speed, ' +
      'Sleep, Framerate, PlaybackSpeed, LoopOffset) and compared as it plays: GIF frames and frame PNGs by pixels with ' +
      'the screenshot options, a video by its frames decoded with ffmpeg. The message gives the first moment (or ' +
      'frame) that differs, or a length or size that differs. Accept with `tapedeck vhs -u` or `tapedeck review`.',
  },
  {
    code: 'TD1006',
    title: 'response too large',
    explanation:
      'The server sent more bytes for one response than the limit allows (default 64 MiB; --max-response-bytes ' +
      'or "maxResponseBytes" in tapedeck.config.json). tapedeck stopped reading, stopped the server and kept ' +
      'memory bounded; the rest of the tape was not replayed. A server that floods its output, or a response ' +
      'that never ends, looks like this. Raise the limit if the response is meant to be this large.',
  },
  {
    code: 'TD2001',
    title: 'malformed tape line',
    explanation:
      'A tape line is not a valid pair. Every non-blank line must be one JSON object with string fields ' +
      '"request" and "response" (seed 000 recorder format); other keys are ignored.',
  },
  {
    code: 'TD2002',
    title: 'tape unreadable',
    explanation: 'The tape file could not be read (missing, a directory, or no permission).',
  },
  {
    code: 'TD2003',
    title: 'server could not start',
    explanation: 'The command given after -- could not be started (not found, not executable). Check the path and PATH.',
  },
  {
    code: 'TD2004',
    title: 'redacted value unavailable',
    explanation:
      'The tape stores a secret as {{tapedeck.env.NAME}}, recorded with --redact-env NAME. Replay and serve ' +
      'put the real value back from the environment, so NAME must be set when they run.',
  },
  {
    code: 'TD2006',
    title: 'tape changed during replay',
    explanation:
      'Another writer (a parallel --update, a review, an edit) changed the tape between its replay and the ' +
      'rewrite, so that its requests are no longer the ones replayed. Rewrites re-read the tape under a lock ' +
      'and build on other writers\' changes; this one could not, and wrote nothing. A replay also reads each ' +
      'pair back from the tape file when it needs it (the tape is not held in memory): a file changed since ' +
      'it was first read (size, modification time, another file at its path) is refused rather than read at ' +
      'stale offsets. Replay the tape again.',
  },
  {
    code: 'TD2010',
    title: 'request body too large',
    explanation:
      'An HTTP request body was over the limit of the recording proxy or `serve --transport http` (default ' +
      '8 MiB, --max-body BYTES). It was answered with 413 and never read into memory whole.',
  },
  {
    code: 'TD2011',
    title: 'cannot listen',
    explanation:
      'The --listen address could not be bound: the port is in use, the address is not this machine\'s, or a ' +
      'Unix socket was asked for in a directory that is missing or writable by others (a socket must live in ' +
      'a directory only you can write to; leave --listen out for a private one).',
  },
  {
    code: 'TD2012',
    title: 'bearer token needed',
    explanation:
      'The tape line was recorded from a request that carried `Authorization: Bearer` (the token itself is ' +
      'never stored). Give the token to replay with --auth-token T.',
  },
  {
    code: 'TD3001',
    title: 'unmatched request',
    explanation:
      '`tapedeck serve` got a request that no recorded pair matches (after normalisers). The client was ' +
      'answered with an error. Record the exchange against the real server, or add a normaliser if the ' +
      'request carries a volatile value.',
  },
  {
    code: 'TD3002',
    title: 'recorded pair unused',
    explanation:
      '`tapedeck serve` ended without the client sending this recorded request. The client no longer ' +
      'does what the tape says it did. Pass --allow-unused if a partial conversation is fine.',
  },
];

const byCode = new Map(catalogue.map((c) => [c.code, c]));

export function codeInfo(code: string): CodeInfo | undefined {
  return byCode.get(code.toUpperCase());
}

export function allCodes(): readonly CodeInfo[] {
  return catalogue;
}
