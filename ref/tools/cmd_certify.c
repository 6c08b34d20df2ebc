int arenacert_certify_main(int a, char **b){(void)a;(void)b;return 2;}
