// A stdio test bot in Java that says in its hello's name what its JVM sees of its limits: the heap it may grow to
// (Runtime.maxMemory, MiB), its processors (availableProcessors) and the system property arena.flag (a runtime flag
// -Darena.flag=... given to it); then plays the first legal action (cut out of the request's text).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Sizes {
    public static void main(String[] args) throws Exception {
        long heap = Runtime.getRuntime().maxMemory() >> 20;
        int cpus = Runtime.getRuntime().availableProcessors();
        String flag = System.getProperty("arena.flag", "-");
        String name = "heap=" + heap + " cpus=" + cpus + " flag=" + flag + " args=" + args.length;
        String token = System.getenv("ARENA_TOKEN");
        System.out.println("{\"type\":\"hello\",\"protocol\":1,\"token\":\"" + token + "\",\"name\":\"" + name + "\"}");
        System.out.flush();
        Pattern id = Pattern.compile("\"request_id\":\\s*(\\d+)");
        Pattern first = Pattern.compile("\"legal\":\\s*\\[(\\{[^}]*\\})");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.contains("\"type\":\"match_end\"")) return;
            if (!line.startsWith("{\"type\":\"act\"")) continue;
            Matcher i = id.matcher(line), a = first.matcher(line);
            if (i.find() && a.find()) {
                System.out.println("{\"type\":\"action\",\"request_id\":" + i.group(1) + ",\"action\":" + a.group(1) + "}");
                System.out.flush();
            }
        }
    }
}
