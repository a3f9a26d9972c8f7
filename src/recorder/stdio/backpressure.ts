/**
 * Backpressure for the recorders' relays (the stdio tap, the Unix-socket
 * proxy): bytes are forwarded as they arrive, but when the side they go to
 * cannot take more (a client that reads slowly, or late), the side they come
 * from is paused until it drains, so the bytes wait in the kernel's pipe or
 * socket buffers, not in this process (a 1 GiB flood to a slow client held
 * 1.19 GB before).
 */

/** Pauses `from` until `to` has drained what it holds (a stream that has been destroyed resumes it too). */
export function holdBack(from: NodeJS.ReadableStream, to: NodeJS.WritableStream): void {
  if (from.isPaused()) return;
  from.pause();
  const resume = () => {
    to.off('drain', resume);
    to.off('close', resume);
    to.off('error', resume);
    from.resume();
  };
  to.once('drain', resume);
  to.once('close', resume);
  to.once('error', resume);
}
