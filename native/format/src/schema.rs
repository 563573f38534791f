//! Schema bytes (an encapsulated Arrow IPC schema message) and the bounded,
//! process-wide intern cache that parses each distinct schema once.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow_ipc::writer::{DictionaryTracker, IpcDataGenerator, IpcWriteOptions};
use arrow_schema::{DataType, Field, FieldRef, Schema, SchemaRef};
use once_cell::sync::Lazy;
use parking_lot::{Condvar, Mutex};

use crate::body::check_supported;
use crate::error::{Error, Result};

/// Default number of distinct schemas kept by the global cache.
pub const DEFAULT_SCHEMA_CACHE_CAPACITY: usize = 256;

/// Default bound on the bytes the global cache holds ([`entry_weight`]): 64 MiB.
///
/// Far above what usual schemas need: a 200-column schema with 30-byte names weighs about
/// 61 KiB, so 256 of them about 16 MiB and the count bound binds first. By count alone, 256
/// schemas near the read bounds ([`crate::schema_bounds`]: 100,000 fields, 16 MiB of names,
/// about 66 MiB each) could pin 17 GiB of native memory that Spark does not see; 64 MiB is a
/// sixth of Spark's smallest default executor memory overhead (384 MiB). Such a schema is
/// then parsed on every use instead of cached: slower, never wrong.
pub const DEFAULT_SCHEMA_CACHE_BUDGET: usize = 64 << 20;

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
        check_supported(field.data_type()).map_err(|e| {
            let name = crate::names::quoted(field.name());
            Error::InvalidSchema(format!("field {name:?}: {e}"))
        })?;
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

/// Heap bytes an [`InternedSchema`] entry holds in a [`SchemaCache`], keyed by `key_len` bytes.
///
/// A direct estimate, not a multiple of the encoded length: a schema message may share one
/// child table many times (schema bounds count the expansion), so a small key can parse into a
/// large schema. It counts the key, the canonical encoding (the expanded form) and the parsed
/// schema walked field by field: each field's `Arc<Field>` with its name, metadata and nested
/// types, each `Fields` slice, plus [`ALLOCATION_SLACK`] per allocation for the allocator's
/// rounding. `tests/schema_cache.rs` checks it against the bytes actually allocated.
#[doc(hidden)]
pub fn entry_weight(key_len: usize, entry: &InternedSchema) -> usize {
    ENTRY_OVERHEAD
        .saturating_add(key_len)
        .saturating_add(entry.encoded.capacity())
        .saturating_add(schema_heap_bytes(&entry.schema))
}

/// Bytes the allocator may add to one allocation (size classes round up to 16 bytes).
const ALLOCATION_SLACK: usize = 16;
/// One cache entry's own bookkeeping: its slot, its index entry, the `Arc`s of the key and of
/// the [`InternedSchema`], and the schema's `Arc`.
const ENTRY_OVERHEAD: usize = 256;
/// An `Arc`'s two reference counts.
const ARC_COUNTS: usize = 2 * std::mem::size_of::<usize>();

fn schema_heap_bytes(schema: &Schema) -> usize {
    std::mem::size_of::<Schema>()
        .saturating_add(fields_heap_bytes(schema.fields()))
        .saturating_add(metadata_heap_bytes(schema.metadata()))
}

fn fields_heap_bytes(fields: &arrow_schema::Fields) -> usize {
    let slice = ARC_COUNTS + fields.len() * std::mem::size_of::<FieldRef>() + ALLOCATION_SLACK;
    fields
        .iter()
        .fold(slice, |sum, f| sum.saturating_add(field_heap_bytes(f)))
}

fn field_heap_bytes(field: &Field) -> usize {
    let own = ARC_COUNTS + std::mem::size_of::<Field>() + ALLOCATION_SLACK;
    let name = if field.name().is_empty() {
        0
    } else {
        field.name().len() + ALLOCATION_SLACK
    };
    own.saturating_add(name)
        .saturating_add(metadata_heap_bytes(field.metadata()))
        .saturating_add(data_type_heap_bytes(field.data_type()))
}

fn data_type_heap_bytes(data_type: &DataType) -> usize {
    match data_type {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => field_heap_bytes(f),
        DataType::Struct(fields) => fields_heap_bytes(fields),
        DataType::Dictionary(key, value) => (2
            * (std::mem::size_of::<DataType>() + ALLOCATION_SLACK))
            .saturating_add(data_type_heap_bytes(key))
            .saturating_add(data_type_heap_bytes(value)),
        DataType::Timestamp(_, Some(tz)) => ARC_COUNTS + tz.len() + ALLOCATION_SLACK,
        _ => 0,
    }
}

fn metadata_heap_bytes(metadata: &arrow_schema::Metadata) -> usize {
    if metadata.is_empty() {
        return 0;
    }
    // An `Arc<BTreeMap>`: one node of 11 (key, value) slots at least; nodes are at least half
    // full, so two slots per entry beyond it.
    let entry = std::mem::size_of::<(String, String)>();
    let table = ARC_COUNTS + 11 * entry + 64 + 2 * entry * metadata.len() + ALLOCATION_SLACK;
    metadata.iter().fold(table, |sum, (k, v)| {
        sum.saturating_add(k.len() + v.len() + 2 * ALLOCATION_SLACK)
    })
}

/// A thread-safe least-recently-used map from schema bytes to the parsed schema, bounded both
/// by a count and by the bytes its entries hold ([`entry_weight`]).
///
/// A miss evicts least-recently-used entries until the new one fits both bounds; an entry whose
/// weight alone exceeds the byte budget is returned but not cached. Lookups are O(1): one hash
/// of the key under a mutex held for the lookup and the move to the front.
///
/// Concurrent lookups of the same missing key parse it once: the first caller parses while the
/// others wait for its result. A failed parse is not cached, so a miss behaves exactly like no
/// cache (the waiters then try for themselves).
pub struct SchemaCache {
    lru: Mutex<Lru>,
    capacity: usize,
    budget: usize,
    parses: AtomicU64,
}

/// A parse in flight: its leader fills `result` (`None` when the parse failed) and wakes the
/// waiters.
#[derive(Default)]
struct Flight {
    result: Mutex<Option<Option<Arc<InternedSchema>>>>,
    done: Condvar,
}

const NIL: usize = usize::MAX;

struct Slot {
    entry: Option<(Arc<[u8]>, Arc<InternedSchema>)>,
    weight: usize,
    prev: usize,
    next: usize,
}

/// The map and its recency list: a doubly linked list threaded through `slots` by index,
/// most recent at `head`.
struct Lru {
    index: HashMap<Arc<[u8]>, usize, ahash::RandomState>,
    pending: HashMap<Arc<[u8]>, Arc<Flight>, ahash::RandomState>,
    slots: Vec<Slot>,
    free: Vec<usize>,
    head: usize,
    tail: usize,
    held: usize,
}

impl Lru {
    fn new() -> Self {
        Lru {
            index: HashMap::default(),
            pending: HashMap::default(),
            slots: Vec::new(),
            free: Vec::new(),
            head: NIL,
            tail: NIL,
            held: 0,
        }
    }

    fn unlink(&mut self, i: usize) {
        let (prev, next) = (self.slots[i].prev, self.slots[i].next);
        match prev {
            NIL => self.head = next,
            p => self.slots[p].next = next,
        }
        match next {
            NIL => self.tail = prev,
            n => self.slots[n].prev = prev,
        }
    }

    fn push_front(&mut self, i: usize) {
        self.slots[i].prev = NIL;
        self.slots[i].next = self.head;
        match self.head {
            NIL => self.tail = i,
            h => self.slots[h].prev = i,
        }
        self.head = i;
    }

    /// The cached value for `key`, made the most recent.
    fn get(&mut self, key: &[u8]) -> Option<Arc<InternedSchema>> {
        let i = *self.index.get(key)?;
        if self.head != i {
            self.unlink(i);
            self.push_front(i);
        }
        self.slots[i].entry.as_ref().map(|(_, v)| v.clone())
    }

    fn evict_tail(&mut self) {
        let i = self.tail;
        if i == NIL {
            return;
        }
        self.unlink(i);
        self.held -= self.slots[i].weight;
        if let Some((key, _)) = self.slots[i].entry.take() {
            self.index.remove(&key);
        }
        self.free.push(i);
    }

    /// Caches `value` as the most recent, first evicting the least recent entries until it fits
    /// `capacity` entries and `budget` bytes; nothing is cached when it alone exceeds `budget`.
    fn insert(
        &mut self,
        key: Arc<[u8]>,
        value: Arc<InternedSchema>,
        capacity: usize,
        budget: usize,
    ) {
        let weight = entry_weight(key.len(), &value);
        if weight > budget || self.index.contains_key(&*key) {
            return;
        }
        while self.index.len() >= capacity || self.held + weight > budget {
            if self.tail == NIL {
                break;
            }
            self.evict_tail();
        }
        let slot = Slot {
            entry: Some((key.clone(), value)),
            weight,
            prev: NIL,
            next: NIL,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i] = slot;
                i
            }
            None => {
                self.slots.push(slot);
                self.slots.len() - 1
            }
        };
        self.push_front(i);
        self.index.insert(key, i);
        self.held += weight;
    }
}

/// The leader of a [`Flight`]: on drop, also when the parse failed or panicked, it caches the
/// result (if any), retires the flight and wakes its waiters.
struct Leader<'a> {
    cache: &'a SchemaCache,
    key: Arc<[u8]>,
    flight: Arc<Flight>,
    result: Option<Arc<InternedSchema>>,
}

impl Drop for Leader<'_> {
    fn drop(&mut self) {
        {
            let mut lru = self.cache.lru.lock();
            lru.pending.remove(&*self.key);
            if let Some(value) = &self.result {
                lru.insert(
                    self.key.clone(),
                    value.clone(),
                    self.cache.capacity,
                    self.cache.budget,
                );
            }
        }
        *self.flight.result.lock() = Some(self.result.take());
        self.flight.done.notify_all();
    }
}

impl std::fmt::Debug for SchemaCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaCache")
            .field("len", &self.len())
            .field("capacity", &self.capacity)
            .field("held_bytes", &self.held_bytes())
            .field("budget_bytes", &self.budget)
            .finish()
    }
}

impl SchemaCache {
    /// A cache holding at most `capacity` schemas and [`DEFAULT_SCHEMA_CACHE_BUDGET`] bytes.
    pub fn new(capacity: usize) -> Self {
        Self::with_budget(capacity, DEFAULT_SCHEMA_CACHE_BUDGET)
    }

    /// A cache holding at most `capacity` schemas and `budget` bytes ([`entry_weight`]).
    pub fn with_budget(capacity: usize, budget: usize) -> Self {
        SchemaCache {
            lru: Mutex::new(Lru::new()),
            capacity: capacity.max(1),
            budget,
            parses: AtomicU64::new(0),
        }
    }

    /// The parsed schema for `bytes`, parsing it at most once while it stays cached.
    pub fn get_or_parse(&self, bytes: &[u8]) -> Result<Arc<InternedSchema>> {
        loop {
            let flight = {
                let mut lru = self.lru.lock();
                if let Some(hit) = lru.get(bytes) {
                    return Ok(hit);
                }
                match lru.pending.get(bytes) {
                    Some(flight) => flight.clone(),
                    None => {
                        let key: Arc<[u8]> = Arc::from(bytes);
                        let flight = Arc::new(Flight::default());
                        lru.pending.insert(key.clone(), flight.clone());
                        drop(lru);
                        return self.lead(Leader {
                            cache: self,
                            key,
                            flight,
                            result: None,
                        });
                    }
                }
            };
            let mut result = flight.result.lock();
            while result.is_none() {
                flight.done.wait(&mut result);
            }
            if let Some(Some(value)) = result.as_ref() {
                return Ok(value.clone());
            }
            // The leader's parse failed: try for ourselves (and fail the same way).
        }
    }

    fn lead(&self, mut leader: Leader<'_>) -> Result<Arc<InternedSchema>> {
        self.parses.fetch_add(1, Ordering::Relaxed);
        let schema = Arc::new(parse_schema(&leader.key)?);
        let encoded = encode_schema(&schema)?;
        let value = Arc::new(InternedSchema { schema, encoded });
        leader.result = Some(value.clone());
        Ok(value)
    }

    /// Schemas currently cached.
    pub fn len(&self) -> usize {
        self.lru.lock().index.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many times a schema was parsed (misses), for tests and metrics.
    pub fn parses(&self) -> u64 {
        self.parses.load(Ordering::Relaxed)
    }

    /// The configured bound on the number of schemas.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The configured bound on the bytes held, as [`entry_weight`] counts them.
    pub fn budget_bytes(&self) -> usize {
        self.budget
    }

    /// The bytes the cached entries hold, as [`entry_weight`] counts them; never above
    /// [`Self::budget_bytes`].
    #[doc(hidden)]
    pub fn held_bytes(&self) -> usize {
        self.lru.lock().held
    }
}

static GLOBAL: Lazy<SchemaCache> = Lazy::new(|| {
    SchemaCache::with_budget(DEFAULT_SCHEMA_CACHE_CAPACITY, DEFAULT_SCHEMA_CACHE_BUDGET)
});

/// The process-wide schema cache used by the reader and the JNI layer.
pub fn global_schema_cache() -> &'static SchemaCache {
    &GLOBAL
}
