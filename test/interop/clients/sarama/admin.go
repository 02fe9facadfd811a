package main

import (
	"fmt"
	"sort"
	"time"

	"github.com/Shopify/sarama"
)

type group struct {
	State        string              `json:"state"`
	ProtocolType string              `json:"protocolType"`
	Protocol     string              `json:"protocol"`
	Members      []map[string]string `json:"members"`
	Assigned     map[string][]int32  `json:"assigned"`
}

type adminResult struct {
	Create          *string           `json:"create"`
	CreateAgain     *string           `json:"createAgain"`
	Listed          *int32            `json:"listedPartitions"`
	Configs         map[string]string `json:"configs"`
	CreatePartition *string           `json:"createPartitions"`
	Grown           int               `json:"grownPartitions"`
	DeleteRecords   *string           `json:"deleteRecords"`
	LogStart        int64             `json:"logStartAfterDeleteRecords"`
	Groups          map[string]string `json:"groups"`
	Group           *group            `json:"group"`
	DeleteTopic     *string           `json:"deleteTopic"`
	ListedAfter     bool              `json:"listedAfterDelete"`
}

// admin runs Sarama's ClusterAdmin through a topic's life: create it (twice), list it, describe
// its configs, grow it, delete records from it, list and describe a group consuming it, delete it.
func admin(bootstrap []string, topic, groupID string) (*adminResult, error) {
	ca, err := sarama.NewClusterAdmin(bootstrap, config())
	if err != nil {
		return nil, err
	}
	defer ca.Close()
	out := &adminResult{}
	detail := &sarama.TopicDetail{NumPartitions: 2, ReplicationFactor: 1}
	out.Create = errText(ca.CreateTopic(topic, detail, false))
	out.CreateAgain = errText(ca.CreateTopic(topic, detail, false))
	topics, err := ca.ListTopics()
	if err != nil {
		return nil, err
	}
	if d, ok := topics[topic]; ok {
		out.Listed = &d.NumPartitions
	}
	entries, err := ca.DescribeConfig(sarama.ConfigResource{Type: sarama.TopicResource, Name: topic})
	if err != nil {
		return nil, err
	}
	out.Configs = map[string]string{}
	for _, e := range entries {
		out.Configs[e.Name] = e.Value
	}
	out.CreatePartition = errText(ca.CreatePartitions(topic, 3, nil, false))
	described, err := ca.DescribeTopics([]string{topic})
	if err != nil {
		return nil, err
	}
	out.Grown = len(described[0].Partitions)

	if err := produceTo(bootstrap, topic, 0, 10); err != nil {
		return nil, err
	}
	out.DeleteRecords = errText(ca.DeleteRecords(topic, map[int32]int64{0: 4}))
	if out.LogStart, err = oldest(bootstrap, topic, 0); err != nil {
		return nil, err
	}

	j, err := join(bootstrap, groupID, topic)
	if err != nil {
		return nil, err
	}
	select {
	case <-j.ready:
	case err := <-j.done:
		return nil, fmt.Errorf("the group member stopped before its first session: %v", err)
	case <-time.After(deadline):
		return nil, fmt.Errorf("the group member had no session in %v", deadline)
	}
	if out.Groups, err = ca.ListConsumerGroups(); err != nil {
		return nil, err
	}
	descriptions, err := ca.DescribeConsumerGroups([]string{groupID})
	if err != nil {
		return nil, err
	}
	if out.Group, err = describeGroup(descriptions[0]); err != nil {
		return nil, err
	}
	if err := j.stop(); err != nil {
		return nil, err
	}

	out.DeleteTopic = errText(ca.DeleteTopic(topic))
	if topics, err = ca.ListTopics(); err != nil {
		return nil, err
	}
	_, out.ListedAfter = topics[topic]
	return out, nil
}

func describeGroup(d *sarama.GroupDescription) (*group, error) {
	g := &group{State: d.State, ProtocolType: d.ProtocolType, Protocol: d.Protocol, Members: []map[string]string{}, Assigned: map[string][]int32{}}
	for _, m := range d.Members {
		g.Members = append(g.Members, map[string]string{"clientId": m.ClientId, "clientHost": m.ClientHost})
		assignment, err := m.GetMemberAssignment()
		if err != nil {
			return nil, err
		}
		for t, partitions := range assignment.Topics {
			sort.Slice(partitions, func(a, b int) bool { return partitions[a] < partitions[b] })
			g.Assigned[t] = append(g.Assigned[t], partitions...)
		}
	}
	return g, nil
}

// produceTo writes count messages to one partition with a plain SyncProducer.
func produceTo(bootstrap []string, topic string, partition int32, count int) error {
	cfg := config()
	cfg.Producer.Return.Successes = true
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	p, err := sarama.NewSyncProducer(bootstrap, cfg)
	if err != nil {
		return err
	}
	for i := 0; i < count; i++ {
		if _, _, err := p.SendMessage(&sarama.ProducerMessage{Topic: topic, Partition: partition, Value: sarama.StringEncoder(fmt.Sprint("r", i))}); err != nil {
			p.Close()
			return err
		}
	}
	return p.Close()
}

func oldest(bootstrap []string, topic string, partition int32) (int64, error) {
	client, err := sarama.NewClient(bootstrap, config())
	if err != nil {
		return 0, err
	}
	defer client.Close()
	return client.GetOffset(topic, partition, sarama.OffsetOldest)
}

type afterAcls struct {
	ListAcls *string `json:"listAcls"`
	Acls     int     `json:"acls"`
	Then     *string `json:"thenDescribeCluster"`
	Brokers  int     `json:"brokers"`
}

// adminAfterAcls asks for the ACLs (DescribeAcls), then uses the same admin for a call brook serves.
func adminAfterAcls(bootstrap []string) (*afterAcls, error) {
	ca, err := sarama.NewClusterAdmin(bootstrap, config())
	if err != nil {
		return nil, err
	}
	defer ca.Close()
	out := &afterAcls{}
	acls, err := ca.ListAcls(sarama.AclFilter{ResourceType: sarama.AclResourceAny, Operation: sarama.AclOperationAny, PermissionType: sarama.AclPermissionAny})
	out.ListAcls, out.Acls = errText(err), len(acls)
	brokers, _, err := ca.DescribeCluster()
	out.Then, out.Brokers = errText(err), len(brokers)
	return out, nil
}
