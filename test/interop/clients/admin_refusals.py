"""Asks for what brook answers as Kafka does with the feature off, through kafka-python's admin
client: the ACL calls. Prints the errors seen, as JSON."""
import json
import sys

from kafka.admin import ACL, ACLFilter, ACLOperation, ACLPermissionType, KafkaAdminClient, ResourcePattern, ResourcePatternFilter, ResourceType
from kafka.admin.acl_resource import ACLResourcePatternType
from kafka.errors import KafkaError

bootstrap, topic = sys.argv[1], sys.argv[2]
seen = {}

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
