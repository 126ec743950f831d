// Chunks: one recording of three chunks with different sampling periods,
// made with the jdk.jfr API: starting and stopping a second recording
// rotates the chunk, and while it runs the period is its 5 ms.
import java.nio.file.Path;
import java.time.Duration;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

public class Chunks {
    public static void main(String[] args) throws Exception {
        Configuration c = Configuration.create(Path.of(args[0]));
        Recording r1 = new Recording(c);
        r1.start();
        Cpu.main(new String[] {"400"});
        Recording r2 = new Recording();
        r2.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(5));
        r2.start();
        Cpu.main(new String[] {"400"});
        r2.stop();
        r2.close();
        Cpu.main(new String[] {"400"});
        r1.stop();
        r1.dump(Path.of(args[1]));
        r1.close();
    }
}
