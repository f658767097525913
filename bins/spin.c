/* spin (hostile): loops forever without making a single syscall. */
int main(void)
{
    volatile unsigned long counter = 0;
    for (;;)
        counter++;
}
