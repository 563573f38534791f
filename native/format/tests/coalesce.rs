//! Coalescing small batches: order, boundaries, byte targets, empty input.

mod common;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use tablecache_format::coalesce::{CoalesceTarget, Coalescer};

fn numbered(start: i64, n: i64) -> RecordBatch {
    common::batch(vec![(
        "v",
        Arc::new(Int64Array::from_iter_values(start..start + n)) as ArrayRef,
    )])
}

fn run(sizes: &[i64], target: CoalesceTarget) -> Vec<RecordBatch> {
    let mut start = 0;
    let input: Vec<_> = sizes
        .iter()
        .map(|&n| {
            let b = numbered(start, n);
            start += n;
            Ok(b)
        })
        .collect();
    Coalescer::new(input.into_iter(), target)
        .expect("coalescer")
        .collect::<Result<Vec<_>, _>>()
        .expect("coalesce")
}

fn values(batches: &[RecordBatch]) -> Vec<i64> {
    batches
        .iter()
        .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
        .collect()
}

#[test]
fn rows_keep_their_order_and_groups_respect_the_row_target() {
    let out = run(
        &[3, 3, 3, 3, 0, 25, 1],
        CoalesceTarget {
            max_rows: 10,
            max_bytes: usize::MAX,
        },
    );
    assert_eq!(values(&out), (0..38).collect::<Vec<_>>());
    let sizes: Vec<usize> = out.iter().map(|b| b.num_rows()).collect();
    assert_eq!(sizes, vec![10, 10, 10, 8]);
}

#[test]
fn byte_target_closes_groups_early() {
    let out = run(
        &[100; 10],
        CoalesceTarget {
            max_rows: 1_000_000,
            max_bytes: 2_000,
        },
    );
    assert_eq!(values(&out), (0..1000).collect::<Vec<_>>());
    assert!(out.len() > 1 && out.len() < 10, "{} groups", out.len());
}

#[test]
fn empty_inputs() {
    assert!(run(&[], CoalesceTarget::default()).is_empty());
    assert!(run(&[0, 0], CoalesceTarget::default()).is_empty());
    assert!(Coalescer::new(
        std::iter::empty(),
        CoalesceTarget {
            max_rows: 0,
            max_bytes: 1
        }
    )
    .is_err());
}

#[test]
fn exact_boundaries() {
    let out = run(
        &[5, 5, 5, 5],
        CoalesceTarget {
            max_rows: 10,
            max_bytes: usize::MAX,
        },
    );
    assert_eq!(
        out.iter().map(|b| b.num_rows()).collect::<Vec<_>>(),
        vec![10, 10]
    );
}
