// Reading response bodies chunk by chunk, for tests that pause, cut off or count what a client has received.

/** Reads a body to its end and returns how many bytes came; `progress` hears the running total after each chunk. */
export async function readToEnd(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  progress: (received: number) => void = () => undefined,
): Promise<number> {
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return received;
    received += value.length;
    progress(received);
  }
}
