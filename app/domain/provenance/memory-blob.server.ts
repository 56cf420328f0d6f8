/**
 * The WebAssembly C2PA SDK signs from a `Blob` read with `FileReaderSync`, an API only Web Workers have. On the
 * server the asset is already in memory: a Blob that keeps its bytes (and whose slices do too) and a
 * `FileReaderSync` that hands them back give the SDK what it reads, without copying through a worker.
 */
const BYTES = Symbol("bytes");

export class MemoryBlob extends Blob {
  readonly [BYTES]: Uint8Array;
  constructor(bytes: Uint8Array, type = "") {
    super([bytes as Uint8Array<ArrayBuffer>], { type });
    this[BYTES] = bytes;
  }
  override slice(start?: number, end?: number, type?: string): Blob {
    return new MemoryBlob(this[BYTES].subarray(start ?? 0, end ?? this[BYTES].length), type);
  }
}

class MemoryFileReaderSync {
  readAsArrayBuffer(blob: Blob): ArrayBuffer {
    if (!(blob instanceof MemoryBlob)) throw new Error("FileReaderSync here reads only in-memory blobs");
    const b = blob[BYTES];
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }
}

export function installFileReaderSync(): void {
  const g = globalThis as { FileReaderSync?: unknown };
  if (!g.FileReaderSync) g.FileReaderSync = MemoryFileReaderSync;
}
