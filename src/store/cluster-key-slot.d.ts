// cluster-key-slot (ioredis's own slot function, shipped with ioredis) ships no types.
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (0-16383) of a key, honouring `{hash tags}`. */
  function calculateSlot(key: string | Buffer): number;
  export = calculateSlot;
}
