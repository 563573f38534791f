package dev.tablecache.format;

import java.util.concurrent.atomic.LongAdder;

/**
 * How often frame metadata has been read in this JVM: each parse of a frame ({@link
 * FrameParser#parse}, {@link FrameParser#check}, {@link FrameParser#schemaOf}), of a stats section
 * and each look-up of a schema ({@link SchemaCodec#decode}, cached or not). Nothing in production
 * reads them. They make the parse observable to the tests that hold a cached batch to one parse
 * of its metadata however many times it is read, so that a second parse creeping back into the
 * read path fails them.
 */
final class MetadataReads {

  /** Frames parsed: whole metadata, or a schema found in a frame's bytes. */
  static final LongAdder FRAMES = new LongAdder();

  /** Stats sections parsed into their entries. */
  static final LongAdder STATS = new LongAdder();

  /** Schemas looked up by their bytes. */
  static final LongAdder SCHEMAS = new LongAdder();

  private MetadataReads() {}
}
