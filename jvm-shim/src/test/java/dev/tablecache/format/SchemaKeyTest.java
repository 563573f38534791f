package dev.tablecache.format;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class SchemaKeyTest {

  @Test
  void keysOfTheSameBytesAtAnyOffsetAreEqualAndOthersAreNot() {
    byte[] a = {9, 9, 1, 2, 3, 4, 9};
    byte[] b = {1, 2, 3, 4};
    SchemaKey inA = SchemaKey.probe(a, 2, 4);
    SchemaKey inB = SchemaKey.probe(b, 0, 4);
    assertEquals(inA, inB);
    assertEquals(inA.hashCode(), inB.hashCode());
    assertEquals(4, inA.length());
    assertNotEquals(inA, SchemaKey.probe(b, 0, 3), "a prefix");
    assertNotEquals(inA, SchemaKey.probe(new byte[] {1, 2, 3, 5}, 0, 4), "one byte apart");
    assertNotEquals(inA, "not a key");
  }

  @Test
  void aCopyKeepsItsBytesWhenTheProbedArrayChanges() {
    byte[] frame = {5, 6, 7, 8};
    SchemaKey probe = SchemaKey.probe(frame, 0, 4);
    SchemaKey kept = probe.copy();
    assertEquals(probe, kept);
    frame[1] = 0;
    assertEquals(SchemaKey.probe(new byte[] {5, 6, 7, 8}, 0, 4), kept);
    assertNotEquals(SchemaKey.probe(frame, 0, 4), kept);
  }
}
