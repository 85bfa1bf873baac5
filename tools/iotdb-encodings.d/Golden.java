// Golden prints what IoTDB's own TsFile encoders make of fixed value
// series, so that tsbench's Go encoders can be checked byte for byte
// against the jar a server runs (adapters/iotdb/testdata/encodings.json).
// Run it through tools/iotdb-encodings, which finds the jars.
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.tsfile.encoding.encoder.Encoder;
import org.apache.tsfile.encoding.encoder.TSEncodingBuilder;
import org.apache.tsfile.enums.TSDataType;
import org.apache.tsfile.file.metadata.enums.TSEncoding;

public class Golden {
  static final StringBuilder out = new StringBuilder();
  static boolean first = true;

  static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) s.append(String.format("%02x", x & 0xff));
    return s.toString();
  }

  static void emit(String name, String type, String enc, List<String> vals, byte[] bytes) {
    out.append(first ? "\n" : ",\n");
    first = false;
    out.append("  {\"name\": \"").append(name).append("\", \"type\": \"").append(type)
        .append("\", \"encoding\": \"").append(enc).append("\", \"values\": [");
    for (int i = 0; i < vals.size(); i++) {
      if (i > 0) out.append(", ");
      out.append('"').append(vals.get(i)).append('"');
    }
    out.append("], \"hex\": \"").append(hex(bytes)).append("\"}");
  }

  static Encoder encoder(TSEncoding e, TSDataType t) {
    return TSEncodingBuilder.getEncodingBuilder(e).getEncoder(t);
  }

  static void longs(String name, TSEncoding e, long[] v) throws Exception {
    Encoder enc = encoder(e, TSDataType.INT64);
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    List<String> vals = new ArrayList<>();
    for (long x : v) { enc.encode(x, o); vals.add(Long.toString(x)); }
    enc.flush(o);
    emit(name, "INT64", e.name(), vals, o.toByteArray());
  }

  static void ints(String name, TSEncoding e, int[] v) throws Exception {
    Encoder enc = encoder(e, TSDataType.INT32);
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    List<String> vals = new ArrayList<>();
    for (int x : v) { enc.encode(x, o); vals.add(Integer.toString(x)); }
    enc.flush(o);
    emit(name, "INT32", e.name(), vals, o.toByteArray());
  }

  // floats and doubles travel as their raw bits, so NaNs keep their payload.
  static void floats(String name, float[] v) throws Exception {
    Encoder enc = encoder(TSEncoding.GORILLA, TSDataType.FLOAT);
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    List<String> vals = new ArrayList<>();
    for (float x : v) { enc.encode(x, o); vals.add(Integer.toUnsignedString(Float.floatToRawIntBits(x))); }
    enc.flush(o);
    emit(name, "FLOAT", "GORILLA", vals, o.toByteArray());
  }

  static void doubles(String name, double[] v) throws Exception {
    Encoder enc = encoder(TSEncoding.GORILLA, TSDataType.DOUBLE);
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    List<String> vals = new ArrayList<>();
    for (double x : v) { enc.encode(x, o); vals.add(Long.toUnsignedString(Double.doubleToRawLongBits(x))); }
    enc.flush(o);
    emit(name, "DOUBLE", "GORILLA", vals, o.toByteArray());
  }

  static void bools(String name, boolean[] v) throws Exception {
    Encoder enc = encoder(TSEncoding.RLE, TSDataType.BOOLEAN);
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    List<String> vals = new ArrayList<>();
    for (boolean x : v) { enc.encode(x, o); vals.add(x ? "1" : "0"); }
    enc.flush(o);
    emit(name, "BOOLEAN", "RLE", vals, o.toByteArray());
  }

  public static void main(String[] args) throws Exception {
    Random r = new Random(20261202L);
    int[] sizes = {1, 2, 9, 10, 100, 128, 129, 130, 258, 259};
    for (int n : sizes) {
      long[] ts = new long[n];
      for (int i = 0; i < n; i++) ts[i] = 1735689600000L + 5000L * i;
      longs("regular timestamps, " + n, TSEncoding.TS_2DIFF, ts);
      long[] jitter = new long[n];
      for (int i = 0; i < n; i++) jitter[i] = 1735689600000L + 5000L * i + r.nextInt(4000) - 2000;
      longs("jittered timestamps, " + n, TSEncoding.TS_2DIFF, jitter);
      long[] wide = new long[n];
      for (int i = 0; i < n; i++) wide[i] = r.nextLong();
      longs("random longs, " + n, TSEncoding.TS_2DIFF, wide);
      int[] is = new int[n];
      for (int i = 0; i < n; i++) is[i] = r.nextInt(2001) - 1000;
      ints("small ints, " + n, TSEncoding.TS_2DIFF, is);
      int[] wi = new int[n];
      for (int i = 0; i < n; i++) wi[i] = r.nextInt();
      ints("random ints, " + n, TSEncoding.TS_2DIFF, wi);
      int[] dates = new int[n];
      for (int i = 0; i < n; i++) dates[i] = 20250101 + (i % 28);
      ints("dates, " + n, TSEncoding.TS_2DIFF, dates);
      float[] fs = new float[n];
      for (int i = 0; i < n; i++) fs[i] = (float) (50 + 20 * Math.sin(i / 10.0));
      floats("sine floats, " + n, fs);
      float[] fr = new float[n];
      for (int i = 0; i < n; i++) fr[i] = Float.intBitsToFloat(r.nextInt());
      floats("random float bits, " + n, fr);
      double[] ds = new double[n];
      for (int i = 0; i < n; i++) ds[i] = Math.round((50 + 20 * Math.sin(i / 10.0)) * 100) / 100.0;
      doubles("rounded sine doubles, " + n, ds);
      double[] dr = new double[n];
      for (int i = 0; i < n; i++) dr[i] = Double.longBitsToDouble(r.nextLong());
      doubles("random double bits, " + n, dr);
      boolean[] bs = new boolean[n];
      for (int i = 0; i < n; i++) bs[i] = r.nextBoolean();
      bools("random booleans, " + n, bs);
      boolean[] bt = new boolean[n];
      java.util.Arrays.fill(bt, true);
      bools("all true, " + n, bt);
      bools("all false, " + n, new boolean[n]);
    }
    longs("extremes", TSEncoding.TS_2DIFF, new long[] {Long.MAX_VALUE, Long.MIN_VALUE, 0, -1, Long.MAX_VALUE, 1, Long.MIN_VALUE});
    ints("int extremes", TSEncoding.TS_2DIFF, new int[] {Integer.MAX_VALUE, Integer.MIN_VALUE, 0, -1, Integer.MAX_VALUE, 1, Integer.MIN_VALUE});
    longs("descending", TSEncoding.TS_2DIFF, new long[] {1000, 900, 800, 700, 650, 600});
    floats("special floats", new float[] {0f, -0f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE, Float.MAX_VALUE, 1f, 1f, 1f});
    doubles("special doubles", new double[] {0d, -0d, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE, 1d, 1d, 1d});
    doubles("constant", new double[] {3.5, 3.5, 3.5, 3.5});
    // Runs around RLE's thresholds: 8 repeats start a run, 63 groups end a
    // bit-packed run.
    int[][] runs = {{7, 1}, {8, 1}, {9, 1}, {15, 1}, {16, 1}, {17, 3}, {40, 2}, {600, 1}};
    for (int[] run : runs) {
      List<Boolean> l = new ArrayList<>();
      for (int k = 0; k < 6; k++) {
        for (int i = 0; i < run[0]; i++) l.add(k % 2 == 1);
        for (int i = 0; i < run[1]; i++) l.add(k % 2 == 0);
      }
      boolean[] b = new boolean[l.size()];
      for (int i = 0; i < b.length; i++) b[i] = l.get(i);
      bools("runs of " + run[0] + " and " + run[1], b);
    }
    boolean[] alt = new boolean[1100];
    for (int i = 0; i < alt.length; i++) alt[i] = i % 2 == 0;
    bools("alternating, 1100", alt);
    System.out.println("[" + out + "\n]");
  }
}
