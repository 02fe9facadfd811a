package main

import (
	"fmt"
	"time"

	"github.com/Shopify/sarama"
)

// chunk is how many messages the sync producer hands over per SendMessages call.
const chunk = 100

// acked is one acknowledged message: [partition, offset, value, timestamp ms].
type acked [4]interface{}

type produced struct {
	Acked  []acked  `json:"acked"`
	Errors []string `json:"errors"`
}

// produce writes count messages (key k<i>, value PREFIX<i>) with an idempotent producer, keyed
// across the topic's partitions: a SyncProducer in chunks, or an AsyncProducer (LZ4) all at once.
func produce(bootstrap []string, topic string, count int, mode, prefix string) (*produced, error) {
	cfg := idempotentConfig()
	msgs := make([]*sarama.ProducerMessage, count)
	for i := range msgs {
		msgs[i] = &sarama.ProducerMessage{Topic: topic, Key: sarama.StringEncoder(fmt.Sprint("k", i)), Value: sarama.StringEncoder(fmt.Sprint(prefix, i))}
	}
	out := &produced{Acked: []acked{}, Errors: []string{}}
	switch mode {
	case "sync":
		p, err := sarama.NewSyncProducer(bootstrap, cfg)
		if err != nil {
			return nil, err
		}
		failed := map[*sarama.ProducerMessage]bool{}
		for start := 0; start < count; start += chunk {
			batch := msgs[start:min(start+chunk, count)]
			stamp(batch)
			if err := p.SendMessages(batch); err != nil {
				for _, e := range err.(sarama.ProducerErrors) {
					failed[e.Msg] = true
					out.Errors = append(out.Errors, e.Error())
				}
			}
		}
		if err := p.Close(); err != nil {
			return nil, err
		}
		for _, m := range msgs {
			if !failed[m] {
				out.Acked = append(out.Acked, ack(m))
			}
		}
	case "async":
		cfg.Producer.Compression = sarama.CompressionLZ4
		p, err := sarama.NewAsyncProducer(bootstrap, cfg)
		if err != nil {
			return nil, err
		}
		go func() {
			stamp(msgs)
			for _, m := range msgs {
				p.Input() <- m
			}
		}()
		timeout := time.After(deadline)
		for len(out.Acked)+len(out.Errors) < count {
			select {
			case m := <-p.Successes():
				out.Acked = append(out.Acked, ack(m))
			case e := <-p.Errors():
				out.Errors = append(out.Errors, e.Error())
			case <-timeout:
				out.Errors = append(out.Errors, "no answer for every message in time")
				p.AsyncClose()
				return out, nil
			}
		}
		if err := p.Close(); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("mode %q is not sync or async", mode)
	}
	return out, nil
}

// stamp sets the messages' timestamps to now, in whole milliseconds, which is what a record
// batch holds, so the test knows each record's timestamp exactly.
func stamp(msgs []*sarama.ProducerMessage) {
	now := time.Now().Truncate(time.Millisecond)
	for _, m := range msgs {
		m.Timestamp = now
	}
}

func ack(m *sarama.ProducerMessage) acked {
	value, _ := m.Value.Encode()
	return acked{m.Partition, m.Offset, string(value), m.Timestamp.UnixNano() / int64(time.Millisecond)}
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}
