// A stdio test bot in Java: holds ALLOCATE MiB (args[0], touched) from the start, or, with "grow", allocates 32 MiB
// more at every decision until something gives; plays the first legal action (cut out of the request's text).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Hog {
    static final List<byte[]> HELD = new ArrayList<>();

    static void take(int mib) {
        for (int i = 0; i < mib; i++) {
            byte[] block = new byte[1 << 20];
            java.util.Arrays.fill(block, (byte) 1);
            HELD.add(block);
        }
    }

    public static void main(String[] args) throws Exception {
        int mib = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        boolean grow = args.length > 1 && args[1].equals("grow");
        take(mib);
        String token = System.getenv("ARENA_TOKEN");
        System.out.println("{\"type\":\"hello\",\"protocol\":1,\"token\":\"" + token + "\",\"name\":\"hog-java\"}");
        System.out.flush();
        Pattern id = Pattern.compile("\"request_id\":\\s*(\\d+)");
        Pattern first = Pattern.compile("\"legal\":\\s*\\[(\\{[^}]*\\})");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.contains("\"type\":\"match_end\"")) return;
            if (!line.startsWith("{\"type\":\"act\"")) continue;
            if (grow) take(32);
            Matcher i = id.matcher(line), a = first.matcher(line);
            if (i.find() && a.find()) {
                System.out.println("{\"type\":\"action\",\"request_id\":" + i.group(1) + ",\"action\":" + a.group(1) + "}");
                System.out.flush();
            }
        }
    }
}
