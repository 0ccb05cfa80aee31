// class-transformer keeps @Type() metadata in a storage its entry point does not export; this types the deep import.
declare module 'class-transformer/cjs/storage' {
  import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';
  export const defaultMetadataStorage: MetadataStorage;
}
