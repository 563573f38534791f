package dev.tablecache.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link Utf8#firstInvalid} agrees with the JDK's strict UTF-8 decoder (RFC 3629). */
class Utf8Test {

  private static boolean jdkValid(byte[] b) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(b));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  private static void agrees(byte[] b) {
    assertEquals(jdkValid(b), Utf8.firstInvalid(b, 0, b.length) < 0, java.util.Arrays.toString(b));
  }

  private static byte[] bytes(int... v) {
    byte[] b = new byte[v.length];
    for (int i = 0; i < v.length; i++) {
      b[i] = (byte) v[i];
    }
    return b;
  }

  @Test
  void edgesOfEachSequenceLength() {
    int[][] cases = {
      {0x7F}, {0xC2, 0x80}, {0xC1, 0xBF}, {0xC0, 0x80}, {0xDF, 0xBF}, {0xE0, 0xA0, 0x80},
      {0xE0, 0x9F, 0xBF}, {0xED, 0x9F, 0xBF}, {0xED, 0xA0, 0x80}, {0xEF, 0xBF, 0xBF},
      {0xF0, 0x90, 0x80, 0x80}, {0xF0, 0x8F, 0xBF, 0xBF}, {0xF4, 0x8F, 0xBF, 0xBF},
      {0xF4, 0x90, 0x80, 0x80}, {0xF5, 0x80, 0x80, 0x80}, {0x80}, {0xE2, 0x82}, {0xF0, 0x9F, 0x98},
      {0xE2, 0x28, 0xA1}, {0x61, 0xC3}, {0xC3, 0xA9, 0x61}
    };
    for (int[] c : cases) {
      agrees(bytes(c));
    }
    assertEquals(1, Utf8.firstInvalid(bytes(0x61, 0xC0, 0x80), 0, 3));
  }

  @Test
  void randomBytesLeanTowardsValid() {
    Random r = new Random(7);
    for (int n = 0; n < 200_000; n++) {
      byte[] b = new byte[1 + r.nextInt(6)];
      for (int i = 0; i < b.length; i++) {
        // Mostly lead and continuation bytes near the edges, so both outcomes are common.
        int pick = r.nextInt(4);
        b[i] = (byte) (pick == 0 ? r.nextInt(256) : pick == 1 ? 0x80 + r.nextInt(64) : 0xC0 + r.nextInt(64));
      }
      agrees(b);
    }
  }
}
