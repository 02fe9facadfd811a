/*
 * librdkafka's DeleteConsumerGroupOffsets (the OffsetDelete API) for one group and the
 * partitions named: prints one JSON line with the request's, the group's and each partition's
 * error name. Usage: delete_group_offsets BOOTSTRAP GROUP TOPIC:PARTITION...
 */
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *name_of(rd_kafka_resp_err_t err) { return err == RD_KAFKA_RESP_ERR_NO_ERROR ? "NO_ERROR" : rd_kafka_err2name(err); }

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s BOOTSTRAP GROUP TOPIC:PARTITION...\n", argv[0]);
    return 2;
  }
  char errstr[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "bootstrap.servers", argv[1], errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
    fprintf(stderr, "%s\n", errstr);
    return 2;
  }
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (rk == NULL) {
    fprintf(stderr, "%s\n", errstr);
    return 2;
  }
  rd_kafka_topic_partition_list_t *partitions = rd_kafka_topic_partition_list_new(argc - 3);
  for (int i = 3; i < argc; i++) {
    char *colon = strrchr(argv[i], ':');
    if (colon == NULL) return 2;
    *colon = '\0';
    rd_kafka_topic_partition_list_add(partitions, argv[i], atoi(colon + 1));
  }
  rd_kafka_DeleteConsumerGroupOffsets_t *del = rd_kafka_DeleteConsumerGroupOffsets_new(argv[2], partitions);
  rd_kafka_queue_t *queue = rd_kafka_queue_new(rk);
  rd_kafka_AdminOptions_t *options = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_DELETECONSUMERGROUPOFFSETS);
  rd_kafka_AdminOptions_set_request_timeout(options, 10000, errstr, sizeof errstr);
  rd_kafka_DeleteConsumerGroupOffsets(rk, &del, 1, options, queue);
  rd_kafka_event_t *event = rd_kafka_queue_poll(queue, 20000);
  if (event == NULL) {
    fprintf(stderr, "no result in time\n");
    return 1;
  }
  printf("{\"error\":\"%s\",\"groups\":[", name_of(rd_kafka_event_error(event)));
  const rd_kafka_DeleteConsumerGroupOffsets_result_t *result = rd_kafka_event_DeleteConsumerGroupOffsets_result(event);
  size_t count = 0;
  const rd_kafka_group_result_t **groups = result == NULL ? NULL : rd_kafka_DeleteConsumerGroupOffsets_result_groups(result, &count);
  for (size_t g = 0; g < count; g++) {
    const rd_kafka_error_t *error = rd_kafka_group_result_error(groups[g]);
    printf("%s{\"group\":\"%s\",\"error\":\"%s\",\"partitions\":[", g ? "," : "", rd_kafka_group_result_name(groups[g]), name_of(error ? rd_kafka_error_code(error) : RD_KAFKA_RESP_ERR_NO_ERROR));
    const rd_kafka_topic_partition_list_t *results = rd_kafka_group_result_partitions(groups[g]);
    for (int p = 0; results != NULL && p < results->cnt; p++) {
      const rd_kafka_topic_partition_t *tp = &results->elems[p];
      printf("%s[\"%s\",%d,\"%s\"]", p ? "," : "", tp->topic, (int)tp->partition, name_of(tp->err));
    }
    printf("]}");
  }
  printf("]}\n");
  rd_kafka_event_destroy(event);
  rd_kafka_AdminOptions_destroy(options);
  rd_kafka_DeleteConsumerGroupOffsets_destroy(del);
  rd_kafka_topic_partition_list_destroy(partitions);
  rd_kafka_queue_destroy(queue);
  rd_kafka_destroy(rk);
  return 0;
}
