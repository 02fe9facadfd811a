"""Asks for what brook answers as Kafka does with the feature off, through librdkafka's and
kafka-python's admin clients: a config alteration and the ACL calls. Prints the errors seen, as JSON."""
import json
import sys

from confluent_kafka.admin import AdminClient, ConfigResource
from kafka.admin import ACL, ACLFilter, ACLOperation, ACLPermissionType, KafkaAdminClient, ResourcePattern, ResourcePatternFilter, ResourceType
from kafka.admin.acl_resource import ACLResourcePatternType
from kafka.errors import KafkaError

bootstrap, topic = sys.argv[1], sys.argv[2]
seen = {}

librdkafka = AdminClient({'bootstrap.servers': bootstrap})
resource = ConfigResource('topic', topic, set_config={'retention.ms': '1000'})
try:
    librdkafka.alter_configs([resource])[resource].result()
except Exception as e:
    seen['librdkafka alter_configs'] = [e.args[0].name(), e.args[0].str()]

kafka_python = KafkaAdminClient(bootstrap_servers=bootstrap)
acl = ACL('User:alice', '*', ACLOperation.READ, ACLPermissionType.ALLOW, ResourcePattern(ResourceType.TOPIC, topic))
created = kafka_python.create_acls([acl])
seen['kafka-python create_acls'] = [getattr(error, '__name__', type(error).__name__) for _, error in created['failed']]
acl_filter = ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY, ResourcePatternFilter(ResourceType.ANY, None, ACLResourcePatternType.ANY))
try:
    kafka_python.describe_acls(acl_filter)
except KafkaError as e:
    seen['kafka-python describe_acls'] = type(e).__name__
kafka_python.close()

print(json.dumps(seen))
