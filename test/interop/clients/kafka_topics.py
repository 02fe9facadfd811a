"""A stand-in for Kafka's bin/kafka-topics.sh, as far as librdkafka's tests call it: --create
(with --partitions, --replication-factor and --config name=value) and --delete of one --topic,
through brook's CreateTopics and DeleteTopics by librdkafka's admin client."""
import argparse
import sys

from confluent_kafka.admin import AdminClient, NewTopic

parser = argparse.ArgumentParser()
parser.add_argument('--bootstrap-server', required=True)
parser.add_argument('--create', action='store_true')
parser.add_argument('--delete', action='store_true')
parser.add_argument('--topic', required=True)
parser.add_argument('--partitions', type=int, default=1)
parser.add_argument('--replication-factor', type=int, default=1)
parser.add_argument('--config', action='append', default=[])
args = parser.parse_args()

admin = AdminClient({'bootstrap.servers': args.bootstrap_server})
if args.create:
    configs = dict(c.split('=', 1) for c in args.config)
    admin.create_topics([NewTopic(args.topic, args.partitions, args.replication_factor, config=configs)])[args.topic].result()
elif args.delete:
    admin.delete_topics([args.topic])[args.topic].result()
else:
    sys.exit('only --create and --delete are served')
