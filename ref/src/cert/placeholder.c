typedef int ar_cert_placeholder_t;
