//! PLAIN (id 0): every buffer as Arrow holds it. What a payload falls back to when no other
//! encoding applies or pays, and what a raw payload is always stored as, so that reading it
//! costs no transform.

use super::{estimate_per_buffer, ColumnEncoding, ColumnSample, CostEstimate, EncodedColumn};
use super::{Encoding, StoredColumn};
use crate::body::BodyParts;
use crate::codec::Codec;
use crate::error::Result;
use crate::layout::BufferSpec;
use crate::stats::ColumnStats;

/// The PLAIN unit.
#[derive(Debug)]
pub(crate) struct Plain;

impl ColumnEncoding for Plain {
    fn encoding(&self) -> Encoding {
        Encoding::Plain
    }

    fn transforms(&self, _buffer: &BufferSpec<'_>) -> bool {
        false
    }

    fn estimate(
        &self,
        sample: &ColumnSample<'_>,
        _stats: Option<&ColumnStats>,
        codec: Codec,
    ) -> Result<CostEstimate> {
        estimate_per_buffer(
            sample,
            codec,
            |_| false,
            |_, src, out| out.extend_from_slice(src),
        )
    }

    fn encode(&self, column: &BodyParts<'_>, out: &mut Vec<u8>) -> Result<EncodedColumn> {
        column
            .write_with(out, |_, src, out| out.extend_from_slice(src))
            .map(EncodedColumn::same_length)
    }

    fn decode(&self, _column: StoredColumn<'_, '_>, _scratch: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::test_columns;

    #[test]
    fn round_trips_every_type_and_fill() {
        test_columns::round_trip_all(&Plain);
    }

    #[test]
    fn the_body_is_the_plain_layout_and_nothing_is_transformed() {
        for data in test_columns::every_column(1, 37) {
            let parts = BodyParts::collect(&data).unwrap();
            assert!(!Plain.applies_to(&parts), "{}", data.data_type());
            let mut body = Vec::new();
            let encoded = Plain.encode(&parts, &mut body).unwrap();
            assert_eq!(encoded, EncodedColumn::same_length(parts.plain_len()));
            assert_eq!(body, test_columns::reference_plain_body(&parts));
        }
    }
}
