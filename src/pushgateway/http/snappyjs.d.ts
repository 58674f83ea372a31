/** The part of snappyjs 0.7.0 (no published types) that the push gateway uses: the snappy block format. */
declare module 'snappyjs' {
  /** Decompresses one block; throws when it is not valid snappy or decodes to more than `maxLength` bytes. */
  export function uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array;
  /** Compresses bytes into one block. */
  export function compress(uncompressed: Uint8Array): Uint8Array;
  const snappy: { uncompress: typeof uncompress; compress: typeof compress };
  export default snappy;
}
