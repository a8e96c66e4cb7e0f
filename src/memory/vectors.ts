/**
 * Vector arithmetic for the memory index: storing Float32 vectors as BLOBs,
 * sign-bit signatures for a fast first pass, and the similarities.
 */

/** A vector as the bytes of a SQLite BLOB. */
export function toBlob(vector: Float32Array): Uint8Array {
  return new Uint8Array(
    vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength),
  );
}

/** A BLOB back as a vector (copied, so it is aligned). */
export function fromBlob(blob: Uint8Array): Float32Array {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}

/**
 * The signs of a vector as bits: similar vectors share most signs, so the
 * Hamming distance between signatures ranks candidates cheaply (binary
 * quantisation).
 */
export function signBits(vector: Float32Array): Uint32Array {
  const bits = new Uint32Array(Math.ceil(vector.length / 32));
  for (let i = 0; i < vector.length; i++) {
    if (vector[i] > 0) bits[i >>> 5] |= 1 << (i & 31);
  }
  return bits;
}

/** Differing bits between `a` and the signature at `offset` in `all`. */
export function hamming(a: Uint32Array, all: Uint32Array, offset: number): number {
  let count = 0;
  for (let i = 0; i < a.length; i++) {
    let x = a[i] ^ all[offset + i];
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    count += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return count;
}

/** The dot product; for unit vectors, the cosine similarity. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}
