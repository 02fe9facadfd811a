#!/usr/bin/env bash
# Kafka's kafka-topics.sh as librdkafka's tests call it (KAFKA_PATH is this file's grandparent):
# topics created and deleted through brook's admin APIs.
exec /usr/bin/python3 "$(dirname "$0")/../../kafka_topics.py" "$@"
