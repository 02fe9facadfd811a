package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/Shopify/sarama"
)

// record is one message read: [partition, offset, value].
type record [3]interface{}

// member is a ConsumerGroup handler that passes on every message it is given, marking it
// consumed, and says when its first session has started.
type member struct {
	records chan record
	ready   chan struct{}
	once    sync.Once
}

func (m *member) Setup(sarama.ConsumerGroupSession) error {
	m.once.Do(func() { close(m.ready) })
	return nil
}

func (m *member) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (m *member) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		select {
		case m.records <- record{msg.Partition, msg.Offset, string(msg.Value)}:
			sess.MarkMessage(msg, "")
		case <-sess.Context().Done():
			return nil
		}
	}
	return nil
}

// joined is a ConsumerGroup consuming topic from the oldest offsets, until stop.
type joined struct {
	*member
	group  sarama.ConsumerGroup
	cancel context.CancelFunc
	done   chan error
}

func join(bootstrap []string, groupID, topic string) (*joined, error) {
	cfg := config()
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	group, err := sarama.NewConsumerGroup(bootstrap, groupID, cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	j := &joined{member: &member{records: make(chan record), ready: make(chan struct{})}, group: group, cancel: cancel, done: make(chan error, 1)}
	go func() {
		// Consume returns at each rebalance; a member consumes again until stopped.
		for ctx.Err() == nil {
			if err := group.Consume(ctx, []string{topic}, j.member); err != nil {
				j.done <- err
				return
			}
		}
		j.done <- nil
	}()
	return j, nil
}

// stop leaves the group, committing what was marked.
func (j *joined) stop() error {
	j.cancel()
	if err := <-j.done; err != nil {
		return err
	}
	return j.group.Close()
}

type consumed struct {
	Read []record `json:"read"`
}

// groupConsume reads count messages of topic as the one member of a ConsumerGroup.
func groupConsume(bootstrap []string, groupID, topic string, count int) (*consumed, error) {
	j, err := join(bootstrap, groupID, topic)
	if err != nil {
		return nil, err
	}
	out := &consumed{Read: []record{}}
	timeout := time.After(deadline)
	for len(out.Read) < count {
		select {
		case r := <-j.records:
			out.Read = append(out.Read, r)
		case err := <-j.done:
			return nil, fmt.Errorf("consuming stopped after %d messages: %v", len(out.Read), err)
		case <-timeout:
			return nil, fmt.Errorf("read %d of %d messages in %v", len(out.Read), count, deadline)
		}
	}
	return out, j.stop()
}

type partitionRead struct {
	Partition int32    `json:"partition"`
	Oldest    int64    `json:"oldest"`
	Newest    int64    `json:"newest"`
	ByTime    *int64   `json:"byTime,omitempty"`
	Read      []record `json:"read"`
}

// read asks each partition of topic for its oldest and newest offsets (and the offset for a
// timestamp, if given) and reads it from the oldest to the newest with a plain Consumer.
func read(bootstrap []string, topic string, timestamp []string) ([]partitionRead, error) {
	client, err := sarama.NewClient(bootstrap, config())
	if err != nil {
		return nil, err
	}
	defer client.Close()
	consumer, err := sarama.NewConsumerFromClient(client)
	if err != nil {
		return nil, err
	}
	defer consumer.Close()
	partitions, err := client.Partitions(topic)
	if err != nil {
		return nil, err
	}
	out := []partitionRead{}
	for _, p := range partitions {
		r := partitionRead{Partition: p, Read: []record{}}
		if r.Oldest, err = client.GetOffset(topic, p, sarama.OffsetOldest); err != nil {
			return nil, err
		}
		if r.Newest, err = client.GetOffset(topic, p, sarama.OffsetNewest); err != nil {
			return nil, err
		}
		if len(timestamp) > 0 {
			offset, err := client.GetOffset(topic, p, int64(atoi(timestamp[0])))
			if err != nil {
				return nil, err
			}
			r.ByTime = &offset
		}
		if r.Newest > r.Oldest {
			if r.Read, err = readPartition(consumer, topic, r); err != nil {
				return nil, err
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func readPartition(consumer sarama.Consumer, topic string, r partitionRead) ([]record, error) {
	pc, err := consumer.ConsumePartition(topic, r.Partition, r.Oldest)
	if err != nil {
		return nil, err
	}
	defer pc.Close()
	read := []record{}
	timeout := time.After(deadline)
	for {
		select {
		case msg := <-pc.Messages():
			read = append(read, record{msg.Partition, msg.Offset, string(msg.Value)})
			if msg.Offset >= r.Newest-1 {
				return read, nil
			}
		case err := <-pc.Errors():
			return nil, err
		case <-timeout:
			return nil, fmt.Errorf("partition %d: read %d messages up to offset %d in %v", r.Partition, len(read), r.Newest, deadline)
		}
	}
}
