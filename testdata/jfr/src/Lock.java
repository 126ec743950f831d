// Lock: named threads contending on a monitor (jdk.JavaMonitorEnter) and
// on a ReentrantLock (jdk.ThreadPark).
import java.util.concurrent.locks.ReentrantLock;

public class Lock {
    static final Object monitor = new Object();
    static final ReentrantLock lock = new ReentrantLock();
    static long counter;

    static void busy(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() < until) counter++;
    }

    static void withMonitor() { synchronized (monitor) { busy(2_000_000); } }

    static void withLock() { lock.lock(); try { busy(2_000_000); } finally { lock.unlock(); } }

    public static void main(String[] args) throws Exception {
        long millis = args.length > 0 ? Long.parseLong(args[0]) : 1000;
        long end = System.currentTimeMillis() + millis;
        Thread[] ts = new Thread[4];
        for (int i = 0; i < ts.length; i++) {
            boolean mon = i % 2 == 0;
            ts[i] = new Thread(() -> {
                while (System.currentTimeMillis() < end) { if (mon) withMonitor(); else withLock(); }
            }, (mon ? "monitor-" : "lock-") + i);
        }
        for (Thread t : ts) t.start();
        for (Thread t : ts) t.join();
    }
}
