// Cpu: CPU-bound work on named threads, for JFR execution samples.
// A lambda (a hidden class) and a sleeping thread (a native method) are in it.
import java.util.Arrays;
import java.util.Random;
import java.util.function.LongUnaryOperator;

public class Cpu {
    static volatile long sink;

    static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

    static long sortWork(Random r) {
        int[] a = new int[20000];
        for (int i = 0; i < a.length; i++) a[i] = r.nextInt();
        Arrays.sort(a);
        return a[a.length / 2];
    }

    static long hashWork(long seed) {
        long h = seed;
        for (int i = 0; i < 200000; i++) h = Long.rotateLeft(h * 0x9E3779B97F4A7C15L, 13) ^ i;
        return h;
    }

    public static void main(String[] args) throws Exception {
        long millis = args.length > 0 ? Long.parseLong(args[0]) : 1500;
        long end = System.currentTimeMillis() + millis;
        LongUnaryOperator op = x -> hashWork(x) + fib(22);
        Thread[] ts = {
            new Thread(() -> { while (System.currentTimeMillis() < end) sink += fib(25); }, "fib-worker"),
            new Thread(() -> { Random r = new Random(1); while (System.currentTimeMillis() < end) sink += sortWork(r); }, "sort-worker"),
            new Thread(() -> { long x = 1; while (System.currentTimeMillis() < end) x = op.applyAsLong(x); sink += x; }, "lambda-worker"),
            new Thread(() -> { try { while (System.currentTimeMillis() < end) Thread.sleep(5); } catch (InterruptedException e) { } }, "sleeper"),
        };
        for (Thread t : ts) t.start();
        for (Thread t : ts) t.join();
    }
}
