"""Creates a topic with configs through librdkafka's admin client, describes them, alters them
(AlterConfigs: all the topic's own at once), asks for a bad value, then alters and describes them
through kafka-python's. Prints what each saw, as JSON."""
import json
import sys

from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewTopic
from kafka.admin import ConfigResource as KafkaPythonConfigResource, ConfigResourceType, KafkaAdminClient

bootstrap, topic = sys.argv[1], sys.argv[2]
seen = {}

librdkafka = AdminClient({'bootstrap.servers': bootstrap})
librdkafka.create_topics([NewTopic(topic, 1, 1, config={'retention.ms': '60000'})])[topic].result()


def described(names):
    resource = ConfigResource('topic', topic)
    entries = librdkafka.describe_configs([resource])[resource].result()
    return {name: [entries[name].value, ConfigSource(entries[name].source).name] for name in names}


seen['created'] = described(['retention.ms', 'segment.bytes'])
resource = ConfigResource('topic', topic, set_config={'retention.ms': '5000', 'cleanup.policy': 'compact'})
librdkafka.alter_configs([resource])[resource].result()
seen['altered'] = described(['retention.ms', 'cleanup.policy'])
bad = ConfigResource('topic', topic, set_config={'retention.ms': 'soon'})
try:
    librdkafka.alter_configs([bad])[bad].result()
except Exception as e:
    seen['bad value'] = [e.args[0].name(), e.args[0].str()]

kafka_python = KafkaAdminClient(bootstrap_servers=bootstrap)
kafka_python.alter_configs([KafkaPythonConfigResource(ConfigResourceType.TOPIC, topic, configs={'retention.ms': '7000'})])
answer = kafka_python.describe_configs([KafkaPythonConfigResource(ConfigResourceType.TOPIC, topic, configs={'retention.ms': None})])
seen['kafka-python retention.ms'] = {entry[0]: entry[1] for entry in answer[0].resources[0][4]}['retention.ms']
kafka_python.close()

print(json.dumps(seen))
