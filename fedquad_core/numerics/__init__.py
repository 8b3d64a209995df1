"""The numbers of federated learning with no state: partitions, quadruplet sampling, loss terms, FedAvg aggregation, embedding geometry."""
