/**
 * A raw SSE reader for the stream tests: frames as the wire carries them, comments included.
 */

/** One SSE frame. `comment` holds a `: …` line's text. */
export interface SseFrame {
  id?: string;
  data?: string;
  comment?: string;
  event?: string;
}

/** Reads frames from an SSE body one at a time. */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  /** The next frame, or `undefined` at the end of the stream. */
  async next(): Promise<SseFrame | undefined> {
    for (;;) {
      const end = this.#buffer.indexOf("\n\n");
      if (end !== -1) {
        const raw = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        return parse(raw);
      }
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /** Every remaining frame until the stream ends. */
  async rest(): Promise<SseFrame[]> {
    const frames: SseFrame[] = [];
    for (let frame = await this.next(); frame !== undefined; frame = await this.next()) {
      frames.push(frame);
    }
    return frames;
  }

  /** Drops the connection, as a network failure would. */
  async disconnect(): Promise<void> {
    await this.#reader.cancel();
  }
}

function parse(raw: string): SseFrame {
  const frame: SseFrame = {};
  for (const line of raw.split("\n")) {
    if (line.startsWith(":")) frame.comment = line.slice(1).trim();
    else if (line.startsWith("id: ")) frame.id = line.slice(4);
    else if (line.startsWith("event: ")) frame.event = line.slice(7);
    else if (line.startsWith("data: ")) frame.data = (frame.data ?? "") + line.slice(6);
  }
  return frame;
}

/** The JSON-RPC message of a frame, if it carries one. */
export function messageOf(frame: SseFrame): Record<string, any> | undefined {
  return frame.data === undefined || frame.data.trim() === "" ? undefined : JSON.parse(frame.data);
}
