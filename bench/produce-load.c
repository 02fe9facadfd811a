/*
 * Produce load generator for brook's benchmarks: an idempotent librdkafka producer (acks=all)
 * sending fixed-size messages round-robin over the partitions of one topic, either to a
 * bootstrap address or to librdkafka's in-memory mock cluster created in this process.
 *
 *   produce-load BOOTSTRAP|mock TOPIC PARTITIONS MESSAGES MSG_BYTES BATCH_MESSAGES [RATE_PER_SEC]
 *
 * With RATE_PER_SEC > 0 messages are paced and per-message latency (send to delivery report)
 * is measured. Prints one JSON line: {"messages":..,"seconds":..,"errors":..,"p50_us":..,"p99_us":..}
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long delivered, errors;
static int64_t *latencies;
static long latency_count;

static int64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
  (void)rk;
  (void)opaque;
  if (m->err) errors++;
  else delivered++;
  if (latencies && m->_private) latencies[latency_count++] = now_us() - (int64_t)(intptr_t)m->_private;
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

int main(int argc, char **argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: %s BOOTSTRAP|mock TOPIC PARTITIONS MESSAGES MSG_BYTES BATCH_MESSAGES [RATE]\n", argv[0]);
    return 2;
  }
  const char *target = argv[1], *topic = argv[2];
  int partitions = atoi(argv[3]);
  long messages = atol(argv[4]);
  int msg_bytes = atoi(argv[5]);
  const char *batch = argv[6];
  long rate = argc > 7 ? atol(argv[7]) : 0;
  char err[256];

  rd_kafka_t *mock_rk = NULL;
  rd_kafka_mock_cluster_t *mock = NULL;
  char bootstrap[512];
  if (strcmp(target, "mock") == 0) {
    rd_kafka_conf_t *mconf = rd_kafka_conf_new();
    mock_rk = rd_kafka_new(RD_KAFKA_PRODUCER, mconf, err, sizeof err);
    mock = rd_kafka_mock_cluster_new(mock_rk, 1);
    rd_kafka_mock_topic_create(mock, topic, partitions, 1);
    snprintf(bootstrap, sizeof bootstrap, "%s", rd_kafka_mock_cluster_bootstraps(mock));
  } else {
    snprintf(bootstrap, sizeof bootstrap, "%s", target);
  }

  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap);
  set(conf, "enable.idempotence", "true");
  set(conf, "acks", "all");
  set(conf, "batch.num.messages", batch);
  set(conf, "linger.ms", rate > 0 ? "0" : "5");
  set(conf, "queue.buffering.max.messages", "1000000");
  set(conf, "queue.buffering.max.kbytes", "1048576");
  set(conf, "compression.codec", "none");
  set(conf, "socket.nagle.disable", "true");
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  if (rate > 0) latencies = calloc((size_t)messages, sizeof *latencies);

  char *payload = malloc((size_t)msg_bytes);
  memset(payload, 'x', (size_t)msg_bytes);
  /* Warm up: one delivered message per partition, so metadata and the producer id are in place. */
  for (int p = 0; p < partitions; p++)
    rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(p), RD_KAFKA_V_VALUE(payload, (size_t)msg_bytes), RD_KAFKA_V_END);
  rd_kafka_flush(rk, 30000);
  delivered = errors = 0;

  int64_t start = now_us();
  for (long i = 0; i < messages; i++) {
    if (rate > 0) {
      int64_t due = start + i * 1000000 / rate;
      while (now_us() < due) rd_kafka_poll(rk, 0);
    }
    void *stamp = rate > 0 ? (void *)(intptr_t)now_us() : NULL;
    for (;;) {
      rd_kafka_resp_err_t e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION((int32_t)(i % partitions)),
                                                RD_KAFKA_V_VALUE(payload, (size_t)msg_bytes), RD_KAFKA_V_OPAQUE(stamp), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
      if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        fprintf(stderr, "produce: %s\n", rd_kafka_err2str(e));
        return 1;
      }
      rd_kafka_poll(rk, 10);
    }
    if ((i & 1023) == 0) rd_kafka_poll(rk, 0);
  }
  rd_kafka_flush(rk, 120000);
  double seconds = (double)(now_us() - start) / 1e6;

  long p50 = -1, p99 = -1;
  if (latencies && latency_count > 0) {
    qsort(latencies, (size_t)latency_count, sizeof *latencies, cmp64);
    p50 = (long)latencies[latency_count / 2];
    p99 = (long)latencies[latency_count * 99 / 100];
  }
  printf("{\"messages\":%ld,\"seconds\":%.6f,\"errors\":%ld,\"p50_us\":%ld,\"p99_us\":%ld}\n", delivered, seconds, errors, p50, p99);
  rd_kafka_destroy(rk);
  if (mock) {
    rd_kafka_mock_cluster_destroy(mock);
    rd_kafka_destroy(mock_rk);
  }
  return errors > 0 || delivered != messages;
}
