// Alloc: allocation-heavy named threads (small objects in TLABs, large
// arrays outside them), for JFR allocation events.
import java.util.ArrayList;
import java.util.List;

public class Alloc {
    static volatile Object sink;

    static Object small(int i) { return new StringBuilder().append("item-").append(i).toString(); }

    static Object large(int i) { return new long[64 * 1024 + (i & 1023)]; }

    public static void main(String[] args) throws Exception {
        long millis = args.length > 0 ? Long.parseLong(args[0]) : 1000;
        long end = System.currentTimeMillis() + millis;
        Thread a = new Thread(() -> {
            int i = 0;
            while (System.currentTimeMillis() < end) {
                List<Object> l = new ArrayList<>();
                for (int j = 0; j < 1000; j++) l.add(small(i++));
                sink = l;
            }
        }, "small-allocator");
        Thread b = new Thread(() -> {
            int i = 0;
            while (System.currentTimeMillis() < end) sink = large(i++);
        }, "large-allocator");
        a.start(); b.start();
        a.join(); b.join();
    }
}
