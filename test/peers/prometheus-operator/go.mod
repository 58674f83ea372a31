module portico.local/servicemonitorcrd

go 1.26

require github.com/prometheus-operator/prometheus-operator v0.91.0
