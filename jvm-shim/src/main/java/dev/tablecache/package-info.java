/**
 * The public API of tablecache: the {@link dev.tablecache.TableCache} facade that writes Arrow
 * batches as cached-batch frames and decodes them back, its options ({@link
 * dev.tablecache.WriteOptions}, {@link dev.tablecache.CacheFormat}, {@link dev.tablecache.Codec},
 * {@link dev.tablecache.EncodingPolicy}, {@link dev.tablecache.Encoding}), the handle {@link
 * dev.tablecache.EncodedSchema} and the one exception every layer throws, {@link
 * dev.tablecache.TableCacheException} (the Rust side throws it by name, so it stays here with its
 * {@code (String kind, String message)} constructor), with {@link dev.tablecache.ErrorText}, the
 * one rule for names quoted in messages. Only the facade (and {@code EncodedSchema},
 * for the schema bytes) reaches into {@link dev.tablecache.format} and {@link dev.tablecache.jni};
 * the exception, {@code ErrorText} and the option types depend on nothing but the JDK, so those
 * packages can use them. Nothing here may depend on Spark ({@code dev.tablecache.spark}, {@code
 * org.apache.spark}, Scala).
 */
package dev.tablecache;
