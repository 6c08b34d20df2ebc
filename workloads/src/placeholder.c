/* placeholder */ typedef int ar_workloads_placeholder_t;
