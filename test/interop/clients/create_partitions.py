"""Grows a topic with librdkafka's and kafka-python's admin clients, then asks for too few partitions
with each; prints the partition counts seen and the errors, as JSON."""
import json
import sys

from confluent_kafka.admin import AdminClient, NewPartitions
from kafka.admin import KafkaAdminClient, NewPartitions as KafkaPythonNewPartitions
from kafka.errors import KafkaError

bootstrap, topic = sys.argv[1], sys.argv[2]
seen = {}

librdkafka = AdminClient({'bootstrap.servers': bootstrap})
librdkafka.create_partitions([NewPartitions(topic, 3)])[topic].result()
seen['librdkafka count'] = len(librdkafka.list_topics(topic).topics[topic].partitions)
try:
    librdkafka.create_partitions([NewPartitions(topic, 2)])[topic].result()
except Exception as e:
    seen['librdkafka error'] = [e.args[0].name(), e.args[0].str()]

kafka_python = KafkaAdminClient(bootstrap_servers=bootstrap)
kafka_python.create_partitions({topic: KafkaPythonNewPartitions(5)})
seen['kafka-python count'] = len(librdkafka.list_topics(topic).topics[topic].partitions)
try:
    kafka_python.create_partitions({topic: KafkaPythonNewPartitions(5)})
except KafkaError as e:
    seen['kafka-python error'] = type(e).__name__
kafka_python.close()

print(json.dumps(seen))
