import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.SplittableRandom;

/**
 * Writes the import benchmark's input: {@code java GenerateData.java csv|jsonl <file> <megabytes>}. Eight
 * columns (int64 id, string name, float64 amount, date day, timestamp ts, bool flag, int64 qty, string
 * comment with commas and quotes now and then); JSON lines add a struct {@code geo} and a list
 * {@code tags}. Deterministic (fixed seed), so every run imports the same bytes.
 */
public final class GenerateData {
  private static final String[] WORDS = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
      "hotel", "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
      "sierra", "tango", "uniform", "victor", "whiskey", "x-ray", "yankee", "zulu", "Zürich", "naïve"};

  public static void main(String[] args) throws IOException {
    boolean json = args[0].equals("jsonl");
    Path out = Path.of(args[1]);
    long target = Long.parseLong(args[2]) * 1_000_000L;
    SplittableRandom r = new SplittableRandom(42);
    long epochDay = LocalDate.of(2020, 1, 1).toEpochDay();
    long written = 0;
    StringBuilder b = new StringBuilder(256);
    try (BufferedWriter w = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(out),
        StandardCharsets.UTF_8), 1 << 20)) {
      if (!json) {
        String header = "id,name,amount,day,ts,flag,qty,comment\n";
        w.write(header);
        written += header.length();
      }
      for (long id = 0; written < target; id++) {
        b.setLength(0);
        String name = WORDS[r.nextInt(WORDS.length)] + " " + WORDS[r.nextInt(WORDS.length)];
        double amount = Math.round(r.nextDouble() * 1_000_000) / 100.0;
        LocalDate day = LocalDate.ofEpochDay(epochDay + r.nextInt(2000));
        String ts = day + "T" + two(r.nextInt(24)) + ":" + two(r.nextInt(60)) + ":" + two(r.nextInt(60)) + "Z";
        boolean flag = r.nextBoolean();
        long qty = r.nextInt(10_000) - 100;
        String comment = r.nextInt(10) == 0 ? "said \"" + WORDS[r.nextInt(WORDS.length)] + "\", then left"
            : WORDS[r.nextInt(WORDS.length)];
        boolean nullQty = r.nextInt(20) == 0;
        if (json) {
          b.append("{\"id\":").append(id).append(",\"name\":\"").append(name).append("\",\"amount\":")
              .append(amount).append(",\"day\":\"").append(day).append("\",\"ts\":\"").append(ts)
              .append("\",\"flag\":").append(flag).append(",\"qty\":").append(nullQty ? "null" : qty)
              .append(",\"comment\":\"").append(comment.replace("\"", "\\\"")).append("\",\"geo\":{\"lat\":")
              .append(Math.round(r.nextDouble() * 18000) / 100.0 - 90).append(",\"lon\":")
              .append(Math.round(r.nextDouble() * 36000) / 100.0 - 180).append("},\"tags\":[\"")
              .append(WORDS[r.nextInt(WORDS.length)]).append("\",\"").append(WORDS[r.nextInt(WORDS.length)])
              .append("\"]}\n");
        } else {
          b.append(id).append(',').append(name).append(',').append(amount).append(',').append(day).append(',')
              .append(ts).append(',').append(flag).append(',').append(nullQty ? "" : Long.toString(qty))
              .append(',');
          if (comment.indexOf('"') >= 0 || comment.indexOf(',') >= 0) {
            b.append('"').append(comment.replace("\"", "\"\"")).append('"');
          } else {
            b.append(comment);
          }
          b.append('\n');
        }
        w.append(b);
        written += b.length();
      }
    }
  }

  private static String two(int n) {
    return n < 10 ? "0" + n : Integer.toString(n);
  }
}
