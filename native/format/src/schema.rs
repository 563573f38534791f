//! Schema bytes (an encapsulated Arrow IPC schema message) and the bounded,
//! process-wide intern cache that parses each distinct schema once.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow_ipc::writer::{DictionaryTracker, IpcDataGenerator, IpcWriteOptions};
use arrow_schema::{DataType, Field, FieldRef, Schema, SchemaRef};
use once_cell::sync::Lazy;

use crate::body::check_supported;
use crate::error::{Error, Result};

/// Default number of distinct schemas kept by the global cache.
pub const DEFAULT_SCHEMA_CACHE_CAPACITY: usize = 256;

/// A parsed schema together with its canonical encoding (what frames embed).
#[derive(Debug)]
pub struct InternedSchema {
    /// The parsed schema.
    pub schema: SchemaRef,
    /// Its canonical encoded bytes, as written into frames.
    pub encoded: Vec<u8>,
}

fn ipc_options() -> Result<IpcWriteOptions> {
    IpcWriteOptions::try_new(8, false, arrow_ipc::MetadataVersion::V5)
        .map_err(|e| Error::Internal(format!("IPC options: {e}")))
}

/// Encodes `schema` as an encapsulated Arrow IPC schema message (FORMAT.md §2).
pub fn encode_schema(schema: &Schema) -> Result<Vec<u8>> {
    let options = ipc_options()?;
    let mut tracker = DictionaryTracker::new(false);
    let encoded = IpcDataGenerator::default().schema_to_bytes_with_dictionary_tracker(
        schema,
        &mut tracker,
        &options,
    );
    let mut out = Vec::with_capacity(encoded.ipc_message.len() + 16);
    arrow_ipc::writer::write_message(&mut out, encoded, &options)
        .map_err(|e| Error::Internal(format!("cannot encode schema: {e}")))?;
    Ok(out)
}

/// Parses schema bytes without any cache; the bounds of [`crate::schema_bounds`] are checked
/// on the raw flatbuffer first.
pub fn parse_schema(bytes: &[u8]) -> Result<Schema> {
    crate::schema_bounds::check_schema_message(bytes)?;
    let schema = arrow_ipc::convert::try_schema_from_ipc_buffer(bytes)
        .map_err(|e| Error::InvalidSchema(e.to_string()))?;
    for field in schema.fields() {
        check_supported(field.data_type())
            .map_err(|e| Error::InvalidSchema(format!("field {:?}: {e}", field.name())))?;
    }
    let fields: Vec<FieldRef> = schema
        .fields()
        .iter()
        .map(without_empty_time_zone)
        .collect();
    Ok(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// `field` with every `Timestamp(_, Some(""))` in its type tree made `Timestamp(_, None)`.
///
/// Arrow gives an empty time zone the meaning of none (time-zone naive), and arrow-rs writes
/// `Some("")` as no time zone but reads an empty one as `Some("")`: without this, a parsed
/// schema and its canonical encoding ([`InternedSchema::encoded`]) would disagree.
fn without_empty_time_zone(field: &FieldRef) -> FieldRef {
    let data_type = match field.data_type() {
        DataType::Timestamp(unit, Some(tz)) if tz.is_empty() => DataType::Timestamp(*unit, None),
        DataType::List(f) => DataType::List(without_empty_time_zone(f)),
        DataType::LargeList(f) => DataType::LargeList(without_empty_time_zone(f)),
        DataType::FixedSizeList(f, n) => DataType::FixedSizeList(without_empty_time_zone(f), *n),
        DataType::Map(f, sorted) => DataType::Map(without_empty_time_zone(f), *sorted),
        DataType::Struct(fields) => {
            DataType::Struct(fields.iter().map(without_empty_time_zone).collect())
        }
        DataType::Dictionary(key, value) => {
            let value = Field::new("", value.as_ref().clone(), true).into();
            let value = without_empty_time_zone(&value).data_type().clone();
            DataType::Dictionary(key.clone(), Box::new(value))
        }
        _ => return field.clone(),
    };
    Arc::new(field.as_ref().clone().with_data_type(data_type))
}

/// A bounded, thread-safe map from schema bytes to the parsed schema.
///
/// Concurrent lookups of the same missing key parse it once: the first caller
/// parses while the others wait for its result. A failed parse is not cached,
/// so a miss behaves exactly like no cache.
pub struct SchemaCache {
    cache: quick_cache::sync::Cache<Vec<u8>, Arc<InternedSchema>>,
    capacity: usize,
    parses: AtomicU64,
}

impl std::fmt::Debug for SchemaCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaCache")
            .field("len", &self.len())
            .field("capacity", &self.capacity)
            .finish()
    }
}

impl SchemaCache {
    /// A cache holding at most `capacity` schemas.
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        let options = quick_cache::OptionsBuilder::new()
            .estimated_items_capacity(capacity)
            .weight_capacity(capacity as u64)
            .shards(1)
            .build()
            .expect("static cache options are valid");
        let cache = quick_cache::sync::Cache::with_options(
            options,
            quick_cache::UnitWeighter,
            Default::default(),
            Default::default(),
        );
        SchemaCache {
            cache,
            capacity,
            parses: AtomicU64::new(0),
        }
    }

    /// The parsed schema for `bytes`, parsing it at most once while it stays cached.
    pub fn get_or_parse(&self, bytes: &[u8]) -> Result<Arc<InternedSchema>> {
        self.cache.get_or_insert_with(bytes, || {
            self.parses.fetch_add(1, Ordering::Relaxed);
            let schema = Arc::new(parse_schema(bytes)?);
            let encoded = encode_schema(&schema)?;
            Ok(Arc::new(InternedSchema { schema, encoded }))
        })
    }

    /// Schemas currently cached.
    pub fn len(&self) -> usize {
        self.cache.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.cache.is_empty()
    }

    /// How many times a schema was parsed (misses), for tests and metrics.
    pub fn parses(&self) -> u64 {
        self.parses.load(Ordering::Relaxed)
    }

    /// The configured bound.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

static GLOBAL: Lazy<SchemaCache> = Lazy::new(|| SchemaCache::new(DEFAULT_SCHEMA_CACHE_CAPACITY));

/// The process-wide schema cache used by the reader and the JNI layer.
pub fn global_schema_cache() -> &'static SchemaCache {
    &GLOBAL
}
