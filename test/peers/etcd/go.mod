module portico.local/etcdbin

go 1.26

require go.etcd.io/etcd/server/v3 v3.7.0
