"""ACLs through kafka-python's admin client (confluent-kafka 1.7, Debian's, has no ACL calls), then
librdkafka (confluent-kafka) clients as two users with different rights: alice may write the topic
and not read it; bob may read it (by a prefixed ACL) in group 'app' and not in group 'other', and
may not write it. Prints what each saw, as JSON."""
import json
import sys

from confluent_kafka import Consumer, Producer
from kafka.admin import ACL, ACLFilter, ACLOperation, ACLPermissionType, KafkaAdminClient, NewTopic, ResourcePattern, ResourcePatternFilter, ResourceType
from kafka import KafkaConsumer, TopicPartition as KafkaTopicPartition
from kafka.admin.acl_resource import ACLResourcePatternType
from kafka.errors import KafkaError as KafkaPythonError

bootstrap, topic = sys.argv[1], sys.argv[2]
seen = {}


def sasl(user):
    return {"bootstrap.servers": bootstrap, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN", "sasl.username": user, "sasl.password": user + "-secret"}


admin = KafkaAdminClient(
    bootstrap_servers=bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN", sasl_plain_username="admin", sasl_plain_password="admin-secret"
)
admin.create_topics([NewTopic(topic, 1, 1)])
literal = ResourcePattern(ResourceType.TOPIC, topic)
prefixed = ResourcePattern(ResourceType.TOPIC, topic[:4], ACLResourcePatternType.PREFIXED)
created = admin.create_acls(
    [
        ACL("User:alice", "*", ACLOperation.WRITE, ACLPermissionType.ALLOW, literal),
        ACL("User:bob", "*", ACLOperation.READ, ACLPermissionType.ALLOW, prefixed),
        ACL("User:bob", "*", ACLOperation.READ, ACLPermissionType.ALLOW, ResourcePattern(ResourceType.GROUP, "app")),
    ]
)
seen["created"] = len(created["succeeded"])
match = ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY, ResourcePatternFilter(ResourceType.TOPIC, topic, ACLResourcePatternType.MATCH))
acls, error = admin.describe_acls(match)
seen["described"] = sorted([a.principal, a.operation.name, a.resource_pattern.pattern_type.name] for a in acls)

producer = Producer({**sasl("alice"), "enable.idempotence": True})
delivered = []
producer.produce(topic, value=b"from alice", on_delivery=lambda err, msg: delivered.append(err.name() if err else "ok"))
producer.flush(15)
seen["alice produces"] = delivered


def consume(user, group):
    consumer = Consumer({**sasl(user), "group.id": group, "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
    for _ in range(40):
        msg = consumer.poll(0.5)
        if msg is None:
            continue
        consumer.close()
        return msg.error().name() if msg.error() else msg.value().decode()
    consumer.close()
    return "nothing"


# librdkafka 2.0 retries a fetch refused TOPIC_AUTHORIZATION_FAILED without telling the application; kafka-python raises it.
reader = KafkaConsumer(
    bootstrap_servers=bootstrap,
    security_protocol="SASL_PLAINTEXT",
    sasl_mechanism="PLAIN",
    sasl_plain_username="alice",
    sasl_plain_password="alice-secret",
    enable_auto_commit=False,
)
reader.assign([KafkaTopicPartition(topic, 0)])
reader.seek(KafkaTopicPartition(topic, 0), 0)
try:
    seen["alice reads"] = str(reader.poll(timeout_ms=10000))
except KafkaPythonError as e:
    seen["alice reads"] = type(e).__name__
reader.close()
seen["bob reads in app"] = consume("bob", "app")
seen["bob reads in other"] = consume("bob", "other")

producer = Producer({**sasl("bob"), "enable.idempotence": False, "message.send.max.retries": 0})
refused = []
producer.produce(topic, value=b"from bob", on_delivery=lambda err, msg: refused.append(err.name() if err else "ok"))
producer.flush(15)
seen["bob produces"] = refused

deleted = admin.delete_acls([ACLFilter("User:alice", None, ACLOperation.ANY, ACLPermissionType.ANY, ResourcePatternFilter(ResourceType.ANY, None, ACLResourcePatternType.ANY))])
seen["deleted"] = [len(matched) for _, matched, _ in deleted]
admin.close()
print(json.dumps(seen))
