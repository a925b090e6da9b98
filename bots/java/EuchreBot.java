// An example Euchre Arena bot in Java 17 (one source file, no libraries) for the "stdio" transport.
//
// Every message is one line of compact JSON: the bot writes hello, then reads referee messages from stdin and
// answers each `act` with one element of its `legal` list on stdout. Diagnostics go to stderr (the bot's log).
// The strategy is a small rule set: bid on counted trump strength, pull trump as maker, win tricks cheaply,
// throw the least useful card. It is deterministic and reads everything it needs from each request's `view`.
//
// Run:     java bots/java/EuchreBot.java          (source-launcher mode)
// or:      javac -d out bots/java/EuchreBot.java && java -cp out EuchreBot
// (the referee sets ARENA_TRANSPORT=stdio and ARENA_TOKEN)
//
// Under an address-space limit of 1 GiB (the sandbox's default memory_mb) a JVM with default settings does not
// start: it reserves a 1 GiB compressed class space and a heap of a quarter of the RAM. These flags make it start
// and keep its own messages off stdout, which carries only protocol lines:
//   java -Xmx64m -XX:+UseSerialGC -XX:CompressedClassSpaceSize=64m -XX:ReservedCodeCacheSize=32m \
//        -XX:+DisplayVMOutputToStderr -Xlog:all=warning:stderr bots/java/EuchreBot.java

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

public class EuchreBot {
    static final String RANKS = "789TJQKA"; // rank index 0..7; 7 and 8 exist only in the 32-card deck
    static final String SUITS = "CDHS"; // C/S and D/H are the same colour: the other jack of trump t is of suit 3 - t
    static final int JACK = 4, ACE = 7;
    static final double[] NEEDED = {0, 0, 2.0, 3.0, 2.2}; // tricks a maker wants from his own hand, by players
    static final double ALONE = 3.5, DEFEND_ALONE = 3.0;

    // ---- cards: "9C", "TD", "JH", "AS" and "JK" (the joker, the Benny) ----

    static int rank(String c) { return c.equals("JK") ? 8 : RANKS.indexOf(c.charAt(0)); }
    static int suit(String c) { return c.equals("JK") ? -1 : SUITS.indexOf(c.charAt(1)); }
    static int cardId(String c) { return c.equals("JK") ? 32 : rank(c) * 4 + suit(c); } // the protocol's sort order

    /** The suit a card belongs to once trump is known: the Benny and the left bower are trump. */
    static int effSuit(String c, int trump) {
        if (c.equals("JK")) return trump;
        if (rank(c) == JACK && suit(c) == 3 - trump) return trump;
        return suit(c);
    }

    /** Strength among trumps (Benny 100, right bower 99, left bower 98, then 50 + rank), -1 for a non-trump. */
    static int trumpPower(String c, int trump) {
        if (c.equals("JK")) return 100;
        if (rank(c) == JACK && suit(c) == trump) return 99;
        if (rank(c) == JACK && suit(c) == 3 - trump) return 98;
        return suit(c) == trump ? 50 + rank(c) : -1;
    }

    /** How strongly a card competes in a trick led in suit {@code led}; -1 when it cannot win it. */
    static int power(String c, int trump, int led) {
        int p = trumpPower(c, trump);
        if (p >= 0) return p;
        return effSuit(c, trump) == led ? rank(c) : -1;
    }

    static List<String> deck(int size) {
        List<String> cards = new ArrayList<>();
        for (int r = size == 32 ? 0 : 2; r < 8; r++)
            for (int s = 0; s < 4; s++) cards.add("" + RANKS.charAt(r) + SUITS.charAt(s));
        if (size == 25) cards.add("JK");
        return cards;
    }

    // ---- hand evaluation ----

    /** Expected tricks of one trump card. */
    static double trumpValue(String c, int trump) {
        return switch (trumpPower(c, trump)) {
            case 100, 99 -> 1.0;
            case 98 -> 0.85;
            case 57 -> 0.75; // ace
            case 56 -> 0.6;
            case 55 -> 0.5;
            default -> 0.4;
        };
    }

    /** Expected tricks of a hand with {@code trump} as trump: trump honours and length, off-suit aces, voids. */
    static double strength(List<String> hand, int trump) {
        int trumps = 0;
        double total = 0;
        for (String c : hand) if (effSuit(c, trump) == trump) { trumps++; total += trumpValue(c, trump); }
        total += 0.2 * Math.max(0, trumps - 2);
        for (int s = 0; s < 4; s++) {
            if (s == trump) continue;
            int held = 0;
            boolean ace = false;
            for (String c : hand) if (effSuit(c, trump) == s) { held++; ace |= rank(c) == ACE; }
            if (held == 0 && trumps >= 2) total += 0.3;
            else if (ace) total += held <= 2 ? 0.7 : 0.5;
        }
        return total;
    }

    /** How much a card is worth keeping (lower is thrown first): trumps, then aces, then cards of long suits. */
    static int keepValue(String c, int trump, List<String> hand) {
        int s = effSuit(c, trump);
        if (s == trump) return 1000 + trumpPower(c, trump);
        long length = hand.stream().filter(x -> effSuit(x, trump) == s).count();
        return (rank(c) == ACE ? 100 : 0) + (length > 1 ? 10 : 0) + rank(c);
    }

    /** The card of {@code cards} least worth keeping, ties broken by card order. */
    static String cheapest(List<String> cards, int trump, List<String> hand) {
        String best = null;
        int bestKey = Integer.MAX_VALUE;
        for (String c : cards) {
            int key = keepValue(c, trump, hand) * 64 + cardId(c);
            if (key < bestKey) { best = c; bestKey = key; }
        }
        return best;
    }

    // ---- the table as the view shows it ----

    record Played(int seat, String card) {}

    /** The request's view (protocol.md section 7), the fields this bot uses. */
    static final class View {
        final int seat, players, dealer, trump; // trump: suit index, -1 until made
        final Integer maker;
        final String phase, upcard, discarded;
        final Boolean upcardTaken;
        final List<String> hand = new ArrayList<>();
        final List<Integer> sittingOut = new ArrayList<>();
        final List<Played> trick;
        final List<List<Played>> tricks = new ArrayList<>();

        View(Map<String, Object> v) {
            seat = num(v.get("seat"));
            players = num(v.get("players"));
            dealer = num(v.get("dealer"));
            trump = v.get("trump") == null ? -1 : SUITS.indexOf((String) v.get("trump"));
            maker = v.get("maker") == null ? null : num(v.get("maker"));
            phase = (String) v.get("phase");
            upcard = (String) v.get("upcard");
            discarded = (String) v.get("discarded");
            upcardTaken = (Boolean) v.get("upcard_taken");
            for (Object c : list(v.get("hand"))) hand.add((String) c);
            for (Object s : list(v.get("sitting_out"))) sittingOut.add(num(s));
            trick = plays(v.get("trick"));
            for (Object t : list(v.get("tricks"))) tricks.add(plays(obj(t).get("cards")));
        }

        static List<Played> plays(Object cards) {
            List<Played> result = new ArrayList<>();
            for (Object p : list(cards)) result.add(new Played(num(obj(p).get("seat")), (String) obj(p).get("card")));
            return result;
        }

        boolean sameSide(int a, int b) {
            if (a == b) return true;
            if (players == 4) return (a + b) % 2 == 0;
            if (players == 3 && maker != null) return a != maker && b != maker; // the two defenders
            return false;
        }

        List<Integer> active() {
            List<Integer> seats = new ArrayList<>();
            for (int s = 0; s < players; s++) if (!sittingOut.contains(s)) seats.add(s);
            return seats;
        }

        /** Cards that may still be in another active seat's hand. */
        List<String> outstanding(int deckSize) {
            Set<String> gone = new HashSet<>(hand);
            for (List<Played> t : tricks) for (Played p : t) gone.add(p.card());
            for (Played p : trick) gone.add(p.card());
            if (!Boolean.TRUE.equals(upcardTaken)) gone.add(upcard); // turned down or declined: in the kitty
            if (discarded != null) gone.add(discarded);
            List<String> rest = deck(deckSize);
            rest.removeAll(gone);
            return rest;
        }

        /** Whether no card still out there beats {@code c} in its own effective suit. */
        boolean isBoss(String c, int deckSize) {
            int s = effSuit(c, trump);
            for (String x : outstanding(deckSize))
                if (effSuit(x, trump) == s && power(x, trump, s) > power(c, trump, s)) return false;
            return true;
        }

        /** Whether {@code seat} has shown out of effective suit {@code s} this hand. */
        boolean isVoid(int seat, int s) {
            List<List<Played>> all = new ArrayList<>(tricks);
            all.add(trick);
            for (List<Played> t : all) {
                if (t.isEmpty() || effSuit(t.get(0).card(), trump) != s) continue;
                for (Played p : t) if (p.seat() == seat && effSuit(p.card(), trump) != s) return true;
            }
            return false;
        }
    }

    // ---- decisions: each returns an element of `legal` ----

    static Map<String, Object> bid(View v, List<Object> legal) {
        List<String> hand = new ArrayList<>(v.hand);
        double best = -1;
        int bestSuit = -1;
        if (v.phase.equals("bid1")) {
            int trump = suit(v.upcard);
            if (v.dealer == v.seat) {
                hand.add(v.upcard); // the dealer takes the upcard and throws his worst other card
                hand.remove(cheapest(v.hand, trump, hand));
                best = strength(hand, trump);
            } else {
                double gift = trumpValue(v.upcard, trump); // the dealer will hold the upcard
                best = strength(hand, trump) + (v.sameSide(v.dealer, v.seat) ? gift : -gift);
            }
            bestSuit = trump;
        } else {
            for (Object a : legal) {
                if (!type(a).equals("call")) continue;
                int s = SUITS.indexOf((String) obj(a).get("suit"));
                double score = strength(hand, s);
                if (score > best || (score == best && s < bestSuit)) { best = score; bestSuit = s; }
            }
        }
        Map<String, Object> pass = find(legal, "pass");
        if (best < NEEDED[v.players] && pass != null) return pass;
        final int trump = bestSuit;
        boolean lone = best >= ALONE && hand.stream().anyMatch(c -> trumpPower(c, trump) >= 99);
        Map<String, Object> fallback = null;
        for (Object a : legal) {
            String t = type(a);
            boolean ours = t.equals("order_up")
                    || (t.equals("call") && SUITS.indexOf((String) obj(a).get("suit")) == trump);
            if (!ours) continue;
            if (Boolean.valueOf(lone).equals(obj(a).get("alone"))) return obj(a);
            if (fallback == null) fallback = obj(a);
        }
        return fallback != null ? fallback : obj(legal.get(0));
    }

    static String lead(View v, List<String> cards, int deckSize) {
        int t = v.trump;
        List<String> trumps = new ArrayList<>(), plain = new ArrayList<>();
        for (String c : cards) (effSuit(c, t) == t ? trumps : plain).add(c);
        trumps.sort((a, b) -> trumpPower(a, t) - trumpPower(b, t));
        boolean ours = v.maker != null && v.sameSide(v.maker, v.seat);
        boolean enemyTrumps = v.outstanding(deckSize).stream().anyMatch(c -> effSuit(c, t) == t);
        if (ours && !trumps.isEmpty() && enemyTrumps) {
            String top = trumps.get(trumps.size() - 1);
            if (v.isBoss(top, deckSize)) return top; // pull trump with the best one
            if (v.maker == v.seat && trumps.size() >= 3) return trumps.get(0);
        }
        String winner = null; // the highest off-suit card nobody can beat or ruff: cash it
        for (String c : plain) {
            if (!v.isBoss(c, deckSize)) continue;
            boolean ruffed = false;
            for (int s : v.active()) ruffed |= !v.sameSide(s, v.seat) && v.isVoid(s, effSuit(c, t));
            if (!ruffed && (winner == null || cardId(c) > cardId(winner))) winner = c;
        }
        if (winner != null) return winner;
        if (!plain.isEmpty()) return cheapest(plain, t, cards);
        String top = trumps.get(trumps.size() - 1);
        return v.isBoss(top, deckSize) ? top : trumps.get(0);
    }

    static String follow(View v, List<String> cards, int deckSize) {
        int t = v.trump;
        int led = effSuit(v.trick.get(0).card(), t);
        Played best = v.trick.get(0);
        for (Played p : v.trick) if (power(p.card(), t, led) > power(best.card(), t, led)) best = p;
        String throwAway = cheapest(cards, t, cards);
        if (v.sameSide(best.seat(), v.seat)) return throwAway; // partner is winning: let it be
        int beat = power(best.card(), t, led);
        List<String> winners = new ArrayList<>();
        for (String c : cards) if (power(c, t, led) > beat) winners.add(c);
        if (winners.isEmpty()) return throwAway;
        winners.sort((a, b) -> power(a, t, led) - power(b, t, led));
        // Second or third to play, following suit: take it with the boss of the suit if nobody behind can ruff.
        boolean behind = false, ruffRisk = false;
        for (int s : v.active()) {
            if (s == v.seat || v.trick.stream().anyMatch(p -> p.seat() == s)) continue;
            behind = true;
            ruffRisk |= !v.sameSide(s, v.seat) && v.isVoid(s, led);
        }
        if (behind && led != t && effSuit(winners.get(0), t) == led && !ruffRisk)
            for (String c : winners) if (effSuit(c, t) == led && v.isBoss(c, deckSize)) return c;
        return winners.get(0); // the cheapest card that wins
    }

    static Map<String, Object> choose(View v, List<Object> legal, int deckSize) {
        List<String> cards = new ArrayList<>();
        for (Object a : legal) if (obj(a).get("card") != null) cards.add((String) obj(a).get("card"));
        switch (v.phase) {
            case "play":
                return byCard(legal, v.trick.isEmpty() ? lead(v, cards, deckSize) : follow(v, cards, deckSize));
            case "discard":
                return byCard(legal, cheapest(cards, v.trump, v.hand));
            case "defend":
                return find(legal, strength(v.hand, v.trump) >= DEFEND_ALONE ? "defend_alone" : "pass");
            case "bid1":
            case "bid2":
                return bid(v, legal);
            default:
                return obj(legal.get(0)); // name_trump on the Benny is named blind: any suit will do
        }
    }

    static String type(Object action) { return (String) obj(action).get("type"); }

    static Map<String, Object> find(List<Object> legal, String type) {
        for (Object a : legal) if (type(a).equals(type)) return obj(a);
        return null;
    }

    static Map<String, Object> byCard(List<Object> legal, String card) {
        for (Object a : legal) if (card.equals(obj(a).get("card"))) return obj(a);
        return null;
    }

    // ---- the protocol loop ----

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Writer out = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8));
        Map<String, Object> hello = new LinkedHashMap<>();
        hello.put("type", "hello");
        hello.put("protocol", 1L);
        hello.put("token", System.getenv().getOrDefault("ARENA_TOKEN", ""));
        hello.put("name", "java-example");
        hello.put("version", "1.0");
        // The variants this bot plays: its rules know no call for best (Railroad), so a match of another is refused.
        hello.put("variants", List.of("two-hand", "three-hand", "four-hand", "four-hand-32", "british"));
        send(out, hello);
        int deckSize = 24;
        for (String line; (line = in.readLine()) != null; ) { // EOF: the referee is gone
            if (line.isBlank()) continue;
            Map<String, Object> msg;
            try {
                msg = obj(Json.parse(line));
            } catch (RuntimeException e) {
                System.err.println("bad message (" + e.getMessage() + "): " + line);
                continue;
            }
            switch (String.valueOf(msg.get("type"))) {
                case "game_start" -> deckSize = num(obj(msg.get("options")).get("deck"));
                case "act" -> {
                    List<Object> legal = list(msg.get("legal"));
                    Map<String, Object> action = null;
                    try {
                        action = choose(new View(obj(msg.get("view"))), legal, deckSize);
                    } catch (RuntimeException e) {
                        e.printStackTrace();
                    }
                    Map<String, Object> reply = new LinkedHashMap<>();
                    reply.put("type", "action");
                    reply.put("request_id", msg.get("request_id"));
                    reply.put("action", action != null ? action : legal.get(0));
                    send(out, reply);
                }
                case "violation" -> System.err.println("violation: " + line);
                case "match_end" -> System.exit(0);
                default -> { } // welcome, events, game_end and unknown types: nothing to do
            }
        }
    }

    static void send(Writer out, Object message) throws IOException {
        out.write(Json.write(message) + "\n");
        out.flush();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> obj(Object o) { return (Map<String, Object>) o; }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) { return (List<Object>) o; }

    static int num(Object o) { return ((Number) o).intValue(); }

    /**
     * A small JSON reader and writer. Objects are LinkedHashMap, arrays ArrayList, strings String, integers Long
     * (Double if they have a fraction or exponent, or overflow a long), and true/false/null Boolean and null.
     */
    static final class Json {
        private final String s;
        private int i;

        private Json(String s) { this.s = s; }

        static Object parse(String text) {
            Json p = new Json(text);
            Object value = p.value();
            p.space();
            if (p.i != text.length()) throw p.error("trailing characters");
            return value;
        }

        static String write(Object value) {
            StringBuilder out = new StringBuilder();
            write(value, out);
            return out.toString();
        }

        private Object value() {
            space();
            if (i >= s.length()) throw error("unexpected end");
            char c = s.charAt(i);
            switch (c) {
                case '{': return object();
                case '[': return array();
                case '"': return string();
                case 't': return literal("true", Boolean.TRUE);
                case 'f': return literal("false", Boolean.FALSE);
                case 'n': return literal("null", null);
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) return number();
                    throw error("unexpected character");
            }
        }

        private Map<String, Object> object() {
            Map<String, Object> map = new LinkedHashMap<>();
            i++; // {
            space();
            if (peek() == '}') { i++; return map; }
            while (true) {
                space();
                if (peek() != '"') throw error("expected a string key");
                String key = string();
                space();
                expect(':');
                map.put(key, value());
                space();
                if (peek() == ',') { i++; continue; }
                expect('}');
                return map;
            }
        }

        private List<Object> array() {
            List<Object> list = new ArrayList<>();
            i++; // [
            space();
            if (peek() == ']') { i++; return list; }
            while (true) {
                list.add(value());
                space();
                if (peek() == ',') { i++; continue; }
                expect(']');
                return list;
            }
        }

        private String string() {
            StringBuilder b = new StringBuilder();
            i++; // opening quote
            while (true) {
                if (i >= s.length()) throw error("unterminated string");
                char c = s.charAt(i++);
                if (c == '"') return b.toString();
                if (c < 0x20) throw error("control character in string");
                if (c != '\\') { b.append(c); continue; }
                if (i >= s.length()) throw error("unterminated escape");
                char e = s.charAt(i++);
                switch (e) {
                    case '"', '\\', '/' -> b.append(e);
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'u' -> { // \\uXXXX; a surrogate pair is two of them, which a Java string holds as they are
                        if (i + 4 > s.length()) throw error("bad \\u escape");
                        try {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw error("bad \\u escape");
                        }
                        i += 4;
                    }
                    default -> throw error("bad escape");
                }
            }
        }

        private Object number() {
            int start = i;
            boolean integral = true;
            if (peek() == '-') i++;
            if (peek() == '0') i++;
            else if (!digits()) throw error("bad number");
            if (peek() == '.') { i++; integral = false; if (!digits()) throw error("bad number"); }
            if (peek() == 'e' || peek() == 'E') {
                i++;
                integral = false;
                if (peek() == '+' || peek() == '-') i++;
                if (!digits()) throw error("bad number");
            }
            String text = s.substring(start, i);
            if (integral) {
                try {
                    return Long.parseLong(text);
                } catch (NumberFormatException tooBig) {
                    // falls through to a double
                }
            }
            return Double.parseDouble(text);
        }

        private boolean digits() {
            int start = i;
            while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') i++;
            return i > start;
        }

        private Object literal(String word, Object value) {
            if (!s.startsWith(word, i)) throw error("unexpected word");
            i += word.length();
            return value;
        }

        private char peek() { return i < s.length() ? s.charAt(i) : '\0'; }

        private void expect(char c) {
            if (peek() != c) throw error("expected '" + c + "'");
            i++;
        }

        private void space() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++;
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException(what + " at offset " + i);
        }

        private static void write(Object v, StringBuilder out) {
            if (v == null || v instanceof Boolean || v instanceof Long || v instanceof Integer) {
                out.append(v);
            } else if (v instanceof Double d) {
                if (d.isNaN() || d.isInfinite()) throw new IllegalArgumentException("no JSON for " + d);
                out.append(d);
            } else if (v instanceof String str) {
                quote(str, out);
            } else if (v instanceof Map<?, ?> map) {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (!first) out.append(',');
                    first = false;
                    quote((String) e.getKey(), out);
                    out.append(':');
                    write(e.getValue(), out);
                }
                out.append('}');
            } else if (v instanceof List<?> list) {
                out.append('[');
                for (int k = 0; k < list.size(); k++) {
                    if (k > 0) out.append(',');
                    write(list.get(k), out);
                }
                out.append(']');
            } else {
                throw new IllegalArgumentException("no JSON for " + v.getClass());
            }
        }

        /** A JSON string in pure ASCII: quotes, backslashes, control and non-ASCII characters escaped. */
        private static void quote(String str, StringBuilder out) {
            out.append('"');
            for (int k = 0; k < str.length(); k++) {
                char c = str.charAt(k);
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    default -> {
                        if (c < 0x20 || c > 0x7e) out.append(String.format("\\u%04x", (int) c));
                        else out.append(c);
                    }
                }
            }
            out.append('"');
        }
    }
}
