/*
 * librdkafka load for brook's benchmarks, against a bootstrap address or librdkafka's in-memory
 * mock cluster created in this process (the reference: a broker with no storage at all).
 *
 *   kafka-load produce BOOTSTRAP|mock TOPIC PARTITIONS MESSAGES MSG_BYTES BATCH_MESSAGES [RATE_PER_SEC]
 *   kafka-load consume BOOTSTRAP|mock TOPIC PARTITIONS MESSAGES MSG_BYTES BATCH_MESSAGES [PASSES]
 *   kafka-load produce-txn BOOTSTRAP|mock TOPIC PARTITIONS MESSAGES MSG_BYTES BATCH_MESSAGES BATCHES_PER_TXN
 *
 * produce: an idempotent producer (acks=all) sends MESSAGES fixed-size messages round-robin over
 *   the partitions. With RATE_PER_SEC > 0 they are paced and per-message latency (send to delivery
 *   report) is measured. Prints {"messages":..,"seconds":..,"errors":..,"p50_us":..,"p99_us":..,
 *   "client_cpu_s":..,"mock_cpu_s":..}: the CPU time of this process's threads while timed, the
 *   mock cluster's own thread apart from the producer's (0 against a real broker).
 * produce-txn: as produce, unpaced, by a transactional producer committing a transaction every
 *   BATCH_MESSAGES * BATCHES_PER_TXN messages (librdkafka's init/begin/commit_transaction).
 * consume: reads the whole topic from offset 0, PASSES times (default 1), and checks that it held
 *   MESSAGES messages besides produce's warm-up ones. A brook topic is filled beforehand by
 *   produce; the mock cluster is filled first in this process, untimed. The mock keeps only ~5 MB
 *   per partition (older batches are dropped), hence passes rather than one large topic.
 *   Prints {"messages":..,"seconds":..,"bytes":..,"client_cpu_s":..,"mock_cpu_s":..}, the CPU
 *   times over all passes, split as for produce.
 */
#include <dirent.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct load {
  const char *bootstrap, *topic, *batch;
  int partitions, msg_bytes;
  long messages;
  long rate;   /* produce: messages per second, 0 for as fast as possible */
  long passes; /* consume: times the whole topic is read */
  long txn_messages; /* produce-txn: messages per transaction; 0 for an idempotent producer */
};

static long delivered, errors;
static int64_t *latencies;
static long latency_count;

static int64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * CPU seconds this process's threads have run (the mock cluster's thread, and the rest), from each
 * thread's schedstat in nanoseconds: /proc's stat counts in 10 ms ticks, too coarse for short runs.
 */
static void thread_cpu(double *client_s, double *mock_s) {
  *client_s = *mock_s = 0;
  DIR *dir = opendir("/proc/self/task");
  if (!dir) return;
  for (struct dirent *e; (e = readdir(dir));) {
    if (e->d_name[0] == '.') continue;
    char path[300], comm[64] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    if (!fgets(comm, sizeof comm, f)) comm[0] = 0;
    fclose(f);
    snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
    if (!(f = fopen(path, "r"))) continue;
    unsigned long long ns;
    int got = fscanf(f, "%llu", &ns);
    fclose(f);
    if (got != 1) continue;
    double s = (double)ns / 1e9;
    if (strncmp(comm, "rdk:mock", 8) == 0) *mock_s += s;
    else *client_s += s;
  }
  closedir(dir);
}

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static void set(rd_kafka_conf_t *conf, const char *k, const char *v) {
  char err[256];
  if (rd_kafka_conf_set(conf, k, v, err, sizeof err) != RD_KAFKA_CONF_OK) {
    fprintf(stderr, "%s: %s\n", k, err);
    exit(2);
  }
}

static rd_kafka_t *client(rd_kafka_type_t type, rd_kafka_conf_t *conf, const char *bootstrap) {
  char err[256];
  set(conf, "bootstrap.servers", bootstrap);
  set(conf, "socket.nagle.disable", "true");
  rd_kafka_t *rk = rd_kafka_new(type, conf, err, sizeof err);
  if (!rk) {
    fprintf(stderr, "%s\n", err);
    exit(1);
  }
  return rk;
}

/* Exits on a transactional call's error. */
static void must(rd_kafka_error_t *error, const char *what) {
  if (!error) return;
  fprintf(stderr, "%s: %s\n", what, rd_kafka_error_string(error));
  exit(1);
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
  (void)rk;
  (void)opaque;
  if (m->err) errors++;
  else delivered++;
  if (latencies && m->_private) latencies[latency_count++] = now_us() - (int64_t)(intptr_t)m->_private;
}

/* Sends l->messages messages; prints the result line if `report`. Returns 0 if all were delivered. */
static int produce(const struct load *l, int report) {
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  set(conf, "enable.idempotence", "true");
  set(conf, "acks", "all");
  set(conf, "batch.num.messages", l->batch);
  set(conf, "linger.ms", l->rate > 0 ? "0" : "5");
  set(conf, "queue.buffering.max.messages", "1000000");
  set(conf, "queue.buffering.max.kbytes", "1048576");
  set(conf, "compression.codec", "none");
  if (l->txn_messages > 0) set(conf, "transactional.id", "kafka-load");
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  rd_kafka_t *rk = client(RD_KAFKA_PRODUCER, conf, l->bootstrap);
  if (l->txn_messages > 0) must(rd_kafka_init_transactions(rk, 30000), "init_transactions");
  if (l->rate > 0) latencies = calloc((size_t)l->messages, sizeof *latencies);

  char *payload = malloc((size_t)l->msg_bytes);
  memset(payload, 'x', (size_t)l->msg_bytes);
  /* Warm up: one delivered message per partition, so metadata and the producer id are in place. */
  if (l->txn_messages > 0) must(rd_kafka_begin_transaction(rk), "begin_transaction");
  for (int p = 0; p < l->partitions; p++)
    rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(l->topic), RD_KAFKA_V_PARTITION(p), RD_KAFKA_V_VALUE(payload, (size_t)l->msg_bytes), RD_KAFKA_V_END);
  rd_kafka_flush(rk, 30000);
  if (l->txn_messages > 0) must(rd_kafka_commit_transaction(rk, 30000), "commit_transaction");
  delivered = errors = 0;

  double client_before, mock_before;
  thread_cpu(&client_before, &mock_before);
  int64_t start = now_us();
  for (long i = 0; i < l->messages; i++) {
    if (l->rate > 0) {
      int64_t due = start + i * 1000000 / l->rate;
      while (now_us() < due) rd_kafka_poll(rk, 0);
    }
    void *stamp = l->rate > 0 ? (void *)(intptr_t)now_us() : NULL;
    if (l->txn_messages > 0 && i % l->txn_messages == 0) must(rd_kafka_begin_transaction(rk), "begin_transaction");
    for (;;) {
      rd_kafka_resp_err_t e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(l->topic), RD_KAFKA_V_PARTITION((int32_t)(i % l->partitions)),
                                                RD_KAFKA_V_VALUE(payload, (size_t)l->msg_bytes), RD_KAFKA_V_OPAQUE(stamp), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
      if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        fprintf(stderr, "produce: %s\n", rd_kafka_err2str(e));
        exit(1);
      }
      rd_kafka_poll(rk, 10);
    }
    if ((i & 1023) == 0) rd_kafka_poll(rk, 0);
    /* Committing flushes the transaction's messages first. */
    if (l->txn_messages > 0 && ((i + 1) % l->txn_messages == 0 || i + 1 == l->messages)) must(rd_kafka_commit_transaction(rk, 120000), "commit_transaction");
  }
  rd_kafka_flush(rk, 120000);
  double seconds = (double)(now_us() - start) / 1e6;
  double client_s, mock_s;
  thread_cpu(&client_s, &mock_s);

  long p50 = -1, p99 = -1;
  if (latencies && latency_count > 0) {
    qsort(latencies, (size_t)latency_count, sizeof *latencies, cmp64);
    p50 = (long)latencies[latency_count / 2];
    p99 = (long)latencies[latency_count * 99 / 100];
  }
  if (report)
    printf("{\"messages\":%ld,\"seconds\":%.6f,\"errors\":%ld,\"p50_us\":%ld,\"p99_us\":%ld,\"client_cpu_s\":%.3f,\"mock_cpu_s\":%.3f}\n", delivered,
           seconds, errors, p50, p99, client_s - client_before, mock_s - mock_before);
  rd_kafka_destroy(rk);
  free(payload);
  return errors > 0 || delivered != l->messages;
}

/* Reads the whole topic (l->messages and the warm-up messages) l->passes times. Returns 0 on success. */
static int consume(const struct load *l) {
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  /* assign() needs a group; nothing is committed and no group is joined. */
  set(conf, "group.id", "brook-bench");
  set(conf, "enable.auto.commit", "false");
  set(conf, "enable.partition.eof", "true");
  /* Between passes: an idle partition would otherwise wait 500 ms before it is fetched again. */
  set(conf, "fetch.wait.max.ms", "10");
  set(conf, "fetch.error.backoff.ms", "10");
  rd_kafka_t *rk = client(RD_KAFKA_CONSUMER, conf, l->bootstrap);
  rd_kafka_poll_set_consumer(rk);
  rd_kafka_topic_partition_list_t *parts = rd_kafka_topic_partition_list_new(l->partitions);
  for (int p = 0; p < l->partitions; p++) rd_kafka_topic_partition_list_add(parts, l->topic, p)->offset = 0;

  long got = 0, expected = l->passes * (l->messages + l->partitions);
  long long bytes = 0;
  double client_before, mock_before;
  thread_cpu(&client_before, &mock_before);
  int64_t start = 0, last = 0, deadline = now_us() + 120 * 1000000LL;
  for (long pass = 0; pass < l->passes; pass++) {
    rd_kafka_resp_err_t e = rd_kafka_assign(rk, parts);
    if (e) {
      fprintf(stderr, "assign: %s\n", rd_kafka_err2str(e));
      return 1;
    }
    /* A pass ends when every partition has reported its end. */
    for (int ended = 0; ended < l->partitions && now_us() < deadline;) {
      rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
      if (!m) continue;
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        ended++;
      } else if (m->err) {
        fprintf(stderr, "consume: %s\n", rd_kafka_message_errstr(m));
      } else {
        /* Timed from the first message: connecting and finding the leader are not fetch throughput. */
        if (got == 0) start = now_us();
        last = now_us();
        got++;
        bytes += (long long)m->len;
      }
      rd_kafka_message_destroy(m);
    }
  }
  double seconds = (double)(last - start) / 1e6;
  double client_s, mock_s;
  thread_cpu(&client_s, &mock_s);
  printf("{\"messages\":%ld,\"seconds\":%.6f,\"bytes\":%lld,\"client_cpu_s\":%.3f,\"mock_cpu_s\":%.3f}\n", got, seconds, bytes, client_s - client_before,
         mock_s - mock_before);
  rd_kafka_topic_partition_list_destroy(parts);
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  if (got != expected) fprintf(stderr, "consume: read %ld messages, expected %ld\n", got, expected);
  return got != expected;
}

int main(int argc, char **argv) {
  int transactional = argc > 8 && strcmp(argv[1], "produce-txn") == 0;
  if (argc < 8 || (strcmp(argv[1], "produce") != 0 && strcmp(argv[1], "consume") != 0 && !transactional)) {
    fprintf(stderr, "usage: %s produce|consume|produce-txn BOOTSTRAP|mock TOPIC PARTITIONS MESSAGES MSG_BYTES BATCH_MESSAGES [RATE|PASSES|BATCHES_PER_TXN]\n", argv[0]);
    return 2;
  }
  int consuming = strcmp(argv[1], "consume") == 0;
  struct load l = {
      .bootstrap = argv[2],
      .topic = argv[3],
      .partitions = atoi(argv[4]),
      .messages = atol(argv[5]),
      .msg_bytes = atoi(argv[6]),
      .batch = argv[7],
      .rate = !consuming && !transactional && argc > 8 ? atol(argv[8]) : 0,
      .passes = consuming && argc > 8 ? atol(argv[8]) : 1,
      .txn_messages = transactional ? atol(argv[7]) * atol(argv[8]) : 0,
  };

  rd_kafka_t *mock_rk = NULL;
  rd_kafka_mock_cluster_t *mock = NULL;
  char bootstrap[512];
  if (strcmp(l.bootstrap, "mock") == 0) {
    char err[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    set(conf, "log_level", "3"); /* this handle only hosts the cluster: no notice about its missing bootstrap */
    mock_rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    mock = rd_kafka_mock_cluster_new(mock_rk, 1);
    rd_kafka_mock_topic_create(mock, l.topic, l.partitions, 1);
    snprintf(bootstrap, sizeof bootstrap, "%s", rd_kafka_mock_cluster_bootstraps(mock));
    l.bootstrap = bootstrap;
    if (consuming && produce(&l, 0) != 0) {
      fprintf(stderr, "filling the mock cluster failed\n");
      return 1;
    }
  }

  int failed = consuming ? consume(&l) : produce(&l, 1);
  if (mock) {
    rd_kafka_mock_cluster_destroy(mock);
    rd_kafka_destroy(mock_rk);
  }
  return failed;
}
