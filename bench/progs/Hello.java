// bench/progs/Hello.java: the JVM's start-up (heap and code-cache reservations, thread stacks
// with guard pages) under -Xint, then one line.
public class Hello {
    public static void main(String[] args) {
        System.out.println("Hello from the JVM");
    }
}
