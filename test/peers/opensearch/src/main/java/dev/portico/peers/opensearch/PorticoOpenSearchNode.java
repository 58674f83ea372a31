package dev.portico.peers.opensearch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.settings.Settings;
import org.opensearch.core.common.transport.TransportAddress;
import org.opensearch.env.Environment;
import org.opensearch.http.HttpServerTransport;
import org.opensearch.node.Node;
import org.opensearch.transport.Netty4Plugin;

/**
 * One OpenSearch node in this JVM, for the differential search tests (test/search/opensearch-node.ts).
 * OpenSearch's own launcher needs its distribution's layout; this starts the same Node class with the
 * two plugins on the classpath instead, on loopback only, single-node, with no security plugin.
 *
 * <p>Usage: {@code java -cp <classpath> dev.portico.peers.opensearch.PorticoOpenSearchNode <home dir>
 * [http port] [transport port]} (ports default to 0: the system picks free ones). When the node is
 * up it prints {@code portico-opensearch http 127.0.0.1:<port>} on standard output. It stops when its
 * standard input closes (so it never outlives the test process that started it) or on SIGTERM.
 */
public final class PorticoOpenSearchNode {
  private PorticoOpenSearchNode() {}

  /** Node's constructor that takes classpath plugins is protected: this subclass opens it. */
  private static final class PluginNode extends Node {
    PluginNode(Environment environment) {
      super(environment, List.of(Netty4Plugin.class, CommonAnalysisPlugin.class, Elasticsearch8Similarity.class), true);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: PorticoOpenSearchNode <home dir> [http port] [transport port]");
      System.exit(2);
    }
    Path home = Path.of(args[0]).toAbsolutePath();
    String httpPort = args.length > 1 ? args[1] : "0";
    String transportPort = args.length > 2 ? args[2] : "0";
    Path config = Files.createDirectories(home.resolve("config"));
    Files.createDirectories(home.resolve("plugins"));
    Files.createDirectories(home.resolve("modules"));
    Settings settings = Settings.builder()
        .put("path.home", home.toString())
        .put("path.data", home.resolve("data").toString())
        .put("path.logs", home.resolve("logs").toString())
        .put("cluster.name", "portico-differential")
        .put("node.name", "reference")
        .put("discovery.type", "single-node")
        .put("network.host", "127.0.0.1")
        .put("http.port", httpPort)
        .put("transport.port", transportPort)
        // The tests fill a disk shared with others; the watermarks would turn the index read-only.
        .put("cluster.routing.allocation.disk.threshold_enabled", false)
        .put("action.auto_create_index", true)
        .build();
    Node node = new PluginNode(new Environment(settings, config));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> close(node), "portico-opensearch-stop"));
    node.start();
    TransportAddress http = node.injector().getInstance(HttpServerTransport.class)
        .boundAddress().publishAddress();
    System.out.println("portico-opensearch http " + http.getAddress() + ":" + http.getPort());
    System.out.flush();
    InputStream in = System.in;
    while (in.read() != -1) {
      // Anything written is ignored; only the end of the stream matters.
    }
    System.exit(0);
  }

  private static void close(Node node) {
    try {
      node.close();
      node.awaitClose(10, TimeUnit.SECONDS);
    } catch (IOException | InterruptedException e) {
      System.err.println("portico-opensearch: stopping: " + e);
    }
  }
}
