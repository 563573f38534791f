//! Coalescing many small record batches into bounded groups, so per-batch
//! costs (frame header, schema, stats, JNI call) are paid once per group.

use arrow_array::RecordBatch;
use arrow_select::concat::concat_batches;

use crate::error::{Error, Result};

/// Target size of one coalesced batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoalesceTarget {
    /// Emit once this many rows are buffered (a larger input batch is split).
    pub max_rows: usize,
    /// Emit once this many bytes (Arrow memory) are buffered.
    pub max_bytes: usize,
}

impl Default for CoalesceTarget {
    fn default() -> Self {
        CoalesceTarget {
            max_rows: 10_000,
            max_bytes: 16 << 20,
        }
    }
}

/// An iterator adapter that merges consecutive input batches, in order, into
/// batches of at most `max_rows` rows, closing a group early once it holds
/// `max_bytes`. It holds at most one group in memory.
#[derive(Debug)]
pub struct Coalescer<I> {
    input: I,
    target: CoalesceTarget,
    pending: Vec<RecordBatch>,
    pending_rows: usize,
    pending_bytes: usize,
    carry: Option<RecordBatch>,
    done: bool,
}

impl<I> Coalescer<I>
where
    I: Iterator<Item = Result<RecordBatch>>,
{
    /// Wraps `input`; `target.max_rows` must be at least 1.
    pub fn new(input: I, target: CoalesceTarget) -> Result<Self> {
        if target.max_rows == 0 {
            return Err(Error::InvalidArgument("coalescing target of 0 rows".into()));
        }
        Ok(Coalescer {
            input,
            target,
            pending: Vec::new(),
            pending_rows: 0,
            pending_bytes: 0,
            carry: None,
            done: false,
        })
    }

    fn flush(&mut self) -> Option<Result<RecordBatch>> {
        if self.pending.is_empty() {
            return None;
        }
        let batches = std::mem::take(&mut self.pending);
        self.pending_rows = 0;
        self.pending_bytes = 0;
        if batches.len() == 1 {
            return batches.into_iter().next().map(Ok);
        }
        let schema = batches[0].schema();
        Some(
            concat_batches(&schema, &batches)
                .map_err(|e| Error::SchemaMismatch(format!("cannot coalesce: {e}"))),
        )
    }
}

impl<I> Iterator for Coalescer<I>
where
    I: Iterator<Item = Result<RecordBatch>>,
{
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let batch = match self.carry.take() {
                Some(b) => b,
                None if self.done => return self.flush(),
                None => match self.input.next() {
                    Some(Ok(b)) => b,
                    Some(Err(e)) => return Some(Err(e)),
                    None => {
                        self.done = true;
                        return self.flush();
                    }
                },
            };
            if batch.num_rows() == 0 {
                continue;
            }
            if let Some(first) = self.pending.first() {
                if first.schema_ref() != batch.schema_ref() {
                    self.carry = Some(batch);
                    return self.flush();
                }
            }
            let room = self.target.max_rows - self.pending_rows;
            let (take, rest) = if batch.num_rows() > room {
                (
                    batch.slice(0, room),
                    Some(batch.slice(room, batch.num_rows() - room)),
                )
            } else {
                (batch, None)
            };
            self.pending_rows += take.num_rows();
            self.pending_bytes += take.get_array_memory_size();
            self.pending.push(take);
            self.carry = rest;
            if self.pending_rows >= self.target.max_rows
                || self.pending_bytes >= self.target.max_bytes
            {
                return self.flush();
            }
        }
    }
}
