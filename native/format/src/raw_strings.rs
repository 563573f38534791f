//! Spark strings that are not UTF-8.
//!
//! Spark's `UTF8String` does not check its bytes: `CAST(binary AS STRING)`, or a CSV or text file
//! in Latin-1, gives string values that are not UTF-8, and Spark computes on them byte by byte.
//! Arrow's `Utf8` must be UTF-8, so a writer keeps a column whose string bytes in a batch are not
//! all UTF-8 with every string type in it as binary (`Utf8` as `Binary`, `LargeUtf8` as
//! `LargeBinary`; inside lists, structs and maps too): same layout, same bytes. That frame's
//! schema then says so for the column; readers serve it back under the table's string types, and
//! the column has no stats bounds in that frame (so no pruning by it).

use std::sync::Arc;

use arrow_array::{
    cast::AsArray, make_array, Array, ArrayRef, GenericStringArray, OffsetSizeTrait, RecordBatch,
    RecordBatchOptions,
};
use arrow_data::ArrayData;
use arrow_schema::{ArrowError, DataType, Field, FieldRef, Schema, SchemaRef};

use crate::{Error, Result};

/// The type a column of `data_type` is read as before its UTF-8 check: `data_type` with every
/// `Utf8` in it (nested ones included) as `Binary` and every `LargeUtf8` as `LargeBinary`.
pub fn unchecked_type(data_type: &DataType) -> DataType {
    match data_type {
        DataType::Utf8 => DataType::Binary,
        DataType::LargeUtf8 => DataType::LargeBinary,
        DataType::List(f) => DataType::List(unchecked_field(f)),
        DataType::LargeList(f) => DataType::LargeList(unchecked_field(f)),
        DataType::FixedSizeList(f, n) => DataType::FixedSizeList(unchecked_field(f), *n),
        DataType::Map(f, sorted) => DataType::Map(unchecked_field(f), *sorted),
        DataType::Struct(fields) => DataType::Struct(fields.iter().map(unchecked_field).collect()),
        other => other.clone(),
    }
}

fn unchecked_field(f: &FieldRef) -> FieldRef {
    Arc::new(
        f.as_ref()
            .clone()
            .with_data_type(unchecked_type(f.data_type())),
    )
}

/// The column of a field of `data_type` from `array`, read as [`unchecked_type`]: when its
/// string bytes are UTF-8, the column under `data_type` (a flat string column takes one pass over
/// its bytes plus a char boundary per offset; a nested one is checked again at every level);
/// else the binary-typed column unchanged. A column without strings is `array` itself.
pub fn utf8_or_binary(array: ArrayRef, data_type: &DataType) -> ArrayRef {
    match (data_type, array.data_type()) {
        (DataType::Utf8, DataType::Binary) => as_string::<i32>(array),
        (DataType::LargeUtf8, DataType::LargeBinary) => as_string::<i64>(array),
        (wanted, read) if wanted != read && *read == unchecked_type(wanted) => {
            match retyped(&array.to_data(), wanted) {
                Ok(data) => make_array(data),
                Err(_not_utf8) => array,
            }
        }
        _ => array,
    }
}

fn as_string<O: OffsetSizeTrait>(array: ArrayRef) -> ArrayRef {
    // Cloning shares the buffers (reference counts), so a failed check copies nothing.
    let binary = array.as_binary::<O>().clone();
    match GenericStringArray::<O>::try_from_binary(binary) {
        Ok(strings) => Arc::new(strings),
        Err(_not_utf8) => array,
    }
}

/// `data` (of [`unchecked_type`]`(to)`) as `to`: the same buffers, every level validated again
/// under its new type (so every string's bytes are checked as UTF-8).
fn retyped(data: &ArrayData, to: &DataType) -> std::result::Result<ArrayData, ArrowError> {
    let child_types: Vec<&DataType> = match to {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => vec![f.data_type()],
        DataType::Struct(fields) => fields.iter().map(|f| f.data_type()).collect(),
        _ => Vec::new(),
    };
    if child_types.len() != data.child_data().len() {
        return Err(ArrowError::InvalidArgumentError(format!(
            "{} children for {to}",
            data.child_data().len()
        )));
    }
    let children = data
        .child_data()
        .iter()
        .zip(child_types)
        .map(|(child, t)| retyped(child, t))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    data.clone()
        .into_builder()
        .data_type(to.clone())
        .child_data(children)
        .build()
}

/// A batch of `columns` under `schema`, except that a field whose column came out with binary
/// strings ([`utf8_or_binary`]) has that column's type in the batch's schema.
pub fn batch_of(schema: &SchemaRef, columns: Vec<ArrayRef>, rows: usize) -> Result<RecordBatch> {
    let stored_as_binary = |(f, c): (&Arc<Field>, &ArrayRef)| {
        f.data_type() != c.data_type() && unchecked_type(f.data_type()) == *c.data_type()
    };
    let schema = if schema.fields().iter().zip(&columns).any(stored_as_binary) {
        let fields = schema
            .fields()
            .iter()
            .zip(&columns)
            .map(|(f, c)| {
                if stored_as_binary((f, c)) {
                    Arc::new(f.as_ref().clone().with_data_type(c.data_type().clone()))
                } else {
                    f.clone()
                }
            })
            .collect::<Vec<_>>();
        Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
    } else {
        schema.clone()
    };
    RecordBatch::try_new_with_options(
        schema,
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| Error::SchemaMismatch(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{BinaryArray, Int64Array, LargeBinaryArray, StringArray};

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, false),
            Field::new("s", DataType::Utf8, true),
        ]))
    }

    #[test]
    fn utf8_bytes_become_strings() {
        let bytes: ArrayRef = Arc::new(BinaryArray::from(vec![
            Some("é".as_bytes()),
            None,
            Some(b"".as_ref()),
        ]));
        // A binary field's bytes stay binary, UTF-8 or not.
        assert_eq!(
            utf8_or_binary(bytes.clone(), &DataType::Binary).data_type(),
            &DataType::Binary
        );
        let strings = utf8_or_binary(bytes, &DataType::Utf8);
        assert_eq!(strings.data_type(), &DataType::Utf8);
        let strings = strings.as_string::<i32>();
        assert_eq!(strings.value(0), "é");
        assert!(strings.is_null(1));
        let large: ArrayRef = Arc::new(LargeBinaryArray::from(vec![Some(b"ab".as_ref())]));
        assert_eq!(
            utf8_or_binary(large, &DataType::LargeUtf8).data_type(),
            &DataType::LargeUtf8
        );
    }

    #[test]
    fn other_bytes_stay_binary() {
        // 0xFF never occurs in UTF-8; a split multibyte char is not UTF-8 either.
        for bad in [&[0xFFu8, b'A'][..], &"é".as_bytes()[..1]] {
            let bytes: ArrayRef =
                Arc::new(BinaryArray::from(vec![Some(b"ok".as_ref()), Some(bad)]));
            let kept = utf8_or_binary(bytes.clone(), &DataType::Utf8);
            assert_eq!(kept.data_type(), &DataType::Binary);
            assert_eq!(kept.as_binary::<i32>().value(1), bad);
        }
    }

    #[test]
    fn batch_schema_says_binary_only_for_columns_stored_so() {
        let keys: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
        let valid: ArrayRef = Arc::new(StringArray::from(vec!["a", "b"]));
        let batch = batch_of(&schema(), vec![keys.clone(), valid], 2).expect("valid");
        assert!(Arc::ptr_eq(&batch.schema(), &schema()) || batch.schema() == schema());

        let raw: ArrayRef = Arc::new(BinaryArray::from(vec![Some(&[0xC3u8][..]), None]));
        let batch = batch_of(&schema(), vec![keys.clone(), raw], 2).expect("valid");
        assert_eq!(batch.schema().field(0), schema().field(0));
        assert_eq!(batch.schema().field(1).data_type(), &DataType::Binary);
        assert_eq!(batch.schema().field(1).name(), "s");
        assert!(batch.schema().field(1).is_nullable());

        // Binary where the schema wants another type is still a mismatch.
        let ints: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
        let wrong = batch_of(&schema(), vec![keys, ints], 2);
        assert!(matches!(wrong, Err(Error::SchemaMismatch(_))), "{wrong:?}");
    }

    #[test]
    fn nested_strings_are_checked_at_every_level() {
        use arrow_array::builder::{BinaryBuilder, ListBuilder};
        let list_of = |values: Vec<Option<&[u8]>>| -> ArrayRef {
            let mut b = ListBuilder::new(BinaryBuilder::new());
            for v in values {
                b.values().append_option(v);
            }
            b.append(true);
            b.append_null();
            Arc::new(b.finish())
        };
        let strings = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
        let read_as = unchecked_type(&strings);
        assert_eq!(
            read_as,
            DataType::List(Arc::new(Field::new("item", DataType::Binary, true)))
        );

        let valid = list_of(vec![Some("é".as_bytes()), None]);
        assert_eq!(valid.data_type(), &read_as);
        let checked = utf8_or_binary(valid, &strings);
        assert_eq!(checked.data_type(), &strings);
        let items = checked.as_list::<i32>().value(0);
        assert_eq!(items.as_string::<i32>().value(0), "é");
        assert!(checked.is_null(1));

        let raw = list_of(vec![Some(b"ok".as_ref()), Some(&[0xFF, b'A'][..])]);
        let kept = utf8_or_binary(raw, &strings);
        assert_eq!(kept.data_type(), &read_as);
        let items = kept.as_list::<i32>().value(0);
        assert_eq!(items.as_binary::<i32>().value(1), &[0xFF, b'A']);

        // The batch's schema carries the binary-typed column; the other fields are unchanged.
        let schema = Arc::new(Schema::new(vec![Field::new("l", strings, true)]));
        let batch = batch_of(&schema, vec![kept], 2).expect("valid");
        assert_eq!(batch.schema().field(0).data_type(), &read_as);
    }

    #[test]
    fn types_without_strings_are_read_as_they_are() {
        let t = DataType::Struct(
            vec![
                Field::new("a", DataType::Int64, true),
                Field::new("b", DataType::Binary, true),
            ]
            .into(),
        );
        assert_eq!(unchecked_type(&t), t);
        let m = DataType::Map(
            Arc::new(Field::new(
                "entries",
                DataType::Struct(
                    vec![
                        Field::new("key", DataType::Utf8, false),
                        Field::new("value", DataType::Int32, true),
                    ]
                    .into(),
                ),
                false,
            )),
            false,
        );
        let DataType::Map(entries, _) = unchecked_type(&m) else {
            panic!("a map stays a map")
        };
        let DataType::Struct(kv) = entries.data_type() else {
            panic!("map entries stay a struct")
        };
        assert_eq!(kv[0].data_type(), &DataType::Binary);
        assert_eq!(kv[1].data_type(), &DataType::Int32);
    }
}
